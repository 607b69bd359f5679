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
