import { z } from 'zod';
import { LIMITS } from './limits.js';
import { httpUrl, point, processorVersion, requestId, shortText, uniqueBy } from './common.js';

const voiceSegment = z
  .object({
    voice_url: httpUrl,
    start_ms: z.number().int().min(0),
    end_ms: z.number().int().min(0),
    text: z.string().max(LIMITS.speechTextChars),
  })
  .refine((segment) => segment.end_ms >= segment.start_ms, { message: 'end_ms must be >= start_ms', path: ['end_ms'] });

export const speechProcessRequest = z.object({
  request_id: requestId,
  cancer_type: shortText('Cancer type of the case, e.g. 肺癌'),
  standard_department_code: z.string().max(LIMITS.codeChars),
  points: z
    .array(point)
    .min(1)
    .max(LIMITS.points)
    .superRefine(uniqueBy('seq'))
    .meta({ description: 'The complete set of required points' }),
  speech_text: z.string().min(1).max(LIMITS.speechTextChars).meta({ description: "The doctor's complete speech text" }),
  voice_segments: z.array(voiceSegment).max(LIMITS.voiceSegments).optional(),
});
export type SpeechProcessRequest = z.infer<typeof speechProcessRequest>;

const structuredPoint = z.object({
  seq: z.number().int(),
  point: z.string(),
  value: z.string(),
  source_text: z.string(),
  voices: z.array(z.string()),
});

export const speechProcessResponse = z.object({
  request_id: z.string(),
  is_complete: z.boolean(),
  covered: z.array(point).meta({ description: 'Covered points, including those stated as not applicable' }),
  missing: z.array(point),
  organized: z
    .object({ structured: z.array(structuredPoint), conclusion: z.string() })
    .nullable()
    .meta({ description: 'Null as a whole when any point is missing' }),
  processor_version: processorVersion,
  artifact_key: z.string(),
  from_cache: z.boolean(),
});
export type SpeechProcessResponse = z.infer<typeof speechProcessResponse>;
