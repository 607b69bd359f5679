import { z } from 'zod';
import { httpUrl, requestId } from './common.js';

export const asrRequest = z.object({
  request_id: requestId,
  voice_url: httpUrl.meta({ description: 'http(s) URL of the recording (WAV, MP3, M4A, OGG, FLAC, WebM, AMR)' }),
});
export type AsrRequest = z.infer<typeof asrRequest>;

export const transcriptSegment = z
  .object({
    start_ms: z.number().int().min(0),
    end_ms: z.number().int().min(0),
    text: z.string(),
  })
  .refine((segment) => segment.end_ms >= segment.start_ms, { message: 'end_ms must be >= start_ms', path: ['end_ms'] });
export type TranscriptSegment = z.infer<typeof transcriptSegment>;

export const asrResponse = z.object({
  text: z.string().meta({ description: 'Full transcript' }),
  segments: z.array(transcriptSegment),
});
export type AsrResponse = z.infer<typeof asrResponse>;
