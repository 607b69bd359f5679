import { z } from 'zod';
import { LIMITS } from './limits.js';
import { processorVersion, requestId, shortText } from './common.js';

const supplement = z.object({
  doctor: z.string().max(LIMITS.shortTextChars),
  content: z.string().max(LIMITS.opinionChars),
});

const deptOpinion = z.object({
  dept: z.string().min(1).max(LIMITS.shortTextChars),
  content: z.string().max(LIMITS.opinionChars),
  supplements: z.array(supplement).max(LIMITS.supplementsPerDept).default([]),
});

export const reportAdviceDraftRequest = z.object({
  request_id: requestId,
  cancer_type: shortText('Cancer type of the case'),
  case_summary: z.object({
    diagnosis: z.string().max(LIMITS.caseSummaryChars),
    key_question: z.string().max(LIMITS.caseSummaryChars),
  }),
  dept_opinions: z.array(deptOpinion).min(1).max(LIMITS.deptOpinions).meta({ description: 'One entry per department' }),
});
export type ReportAdviceDraftRequest = z.infer<typeof reportAdviceDraftRequest>;

export const reportAdviceDraftResponse = z.object({
  request_id: z.string(),
  accepted: z.boolean(),
});
export type ReportAdviceDraftResponse = z.infer<typeof reportAdviceDraftResponse>;

/** A draft the platform accepts: non-empty after trimming, at most 10,000 characters. */
export const adviceDraft = z
  .string()
  .max(LIMITS.adviceDraftChars)
  .refine((text) => text.trim().length > 0, { message: 'advice_draft is empty after trimming' });

/** Where the platform receives AI-3 results, under CALLBACK_BASE_URL. */
export const CALLBACK_PATH = '/internal/ai/callback';
/** The reference receiver's view of what it stored for a job (npm run receiver); the platform's own may differ. */
export const REFERENCE_REPORT_PATH = '/internal/ai/reports/:request_id';

/** Body POSTed to ${CALLBACK_BASE_URL}/internal/ai/callback when an AI-3 job ends. */
export const adviceCallback = z.discriminatedUnion('status', [
  z.object({
    request_id: z.string(),
    status: z.literal('succeeded'),
    advice_draft: adviceDraft,
    processor_version: processorVersion,
    completed_at: z.string().meta({ description: 'ISO 8601 time the job ended' }),
  }),
  z.object({
    request_id: z.string(),
    status: z.literal('failed'),
    error: z.object({ kind: z.string(), message: z.string() }),
    processor_version: processorVersion,
    completed_at: z.string(),
  }),
]);
export type AdviceCallback = z.infer<typeof adviceCallback>;

/** Life of an AI-3 job: drafted (succeeded or failed), then its callback delivered or, past the retry horizon, dead. */
export const ADVICE_JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'delivering', 'delivered', 'dead'] as const;
export type AdviceJobState = (typeof ADVICE_JOB_STATES)[number];

/** GET /ai/v1/report-advice-draft/{request_id}: a job as operators see it, without patient text. */
export const adviceJobStatus = z.object({
  request_id: z.string(),
  state: z.enum(ADVICE_JOB_STATES),
  outcome: z.enum(['succeeded', 'failed']).nullable().meta({ description: 'Result of drafting, once drafted' }),
  error: z.object({ kind: z.string(), message: z.string() }).nullable(),
  webhook_id: z.string().meta({ description: 'Sent as webhook-id on every delivery attempt of this job' }),
  draft_attempts: z.number().int().min(0),
  delivery_attempts: z.number().int().min(0),
  next_attempt_at: z.string().nullable().meta({ description: 'When the next draft or delivery attempt is due (ISO 8601)' }),
  accepted_at: z.string(),
  updated_at: z.string(),
  history: z.array(z.object({ at: z.string(), event: z.string(), detail: z.string().nullable() })),
});
export type AdviceJobStatus = z.infer<typeof adviceJobStatus>;
