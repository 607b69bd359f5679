import { z } from 'zod';
import { LIMITS } from './limits.js';

export const requestId = z
  .string()
  .min(1)
  .max(LIMITS.requestIdChars)
  .meta({ description: 'Caller-chosen identifier, echoed in responses and logs', example: 'req-20261121-0001' });

export const shortText = (description: string) => z.string().max(LIMITS.shortTextChars).meta({ description });

export const httpUrl = z
  .string()
  .min(1)
  .max(LIMITS.urlChars)
  .meta({ description: 'http(s) URL the gateway fetches the file from' });

export const point = z.object({
  seq: z.number().int().meta({ description: 'Order of the point; unique within a request' }),
  name: z.string().min(1).max(LIMITS.pointNameChars),
});
export type RequiredPoint = z.infer<typeof point>;

export const fileReference = z.object({
  upload_file_id: z.number().int().meta({ description: 'Identifier of the uploaded file; matches results to files' }),
  bucket: z.string().max(LIMITS.fileNameChars),
  object_key: z.string().max(LIMITS.fileNameChars),
  file_name: z.string().max(LIMITS.fileNameChars),
  file_url: httpUrl,
});
export type FileReference = z.infer<typeof fileReference>;

/** Refinement for arrays whose items must differ in `field`; the issue points at the repeated item. */
export function uniqueBy<Item extends Record<Field, unknown>, Field extends string>(field: Field) {
  return (items: Item[], ctx: z.RefinementCtx) => {
    const seen = new Set<unknown>();
    items.forEach((item, index) => {
      if (seen.has(item[field])) ctx.addIssue({ code: 'custom', path: [index, field], message: `duplicate ${field}` });
      seen.add(item[field]);
    });
  };
}

export const fileReferences = z
  .array(fileReference)
  .min(1)
  .max(LIMITS.filesPerRequest)
  .superRefine(uniqueBy('upload_file_id'));

export const processorVersion = z.object({
  prompt: z.string().meta({ description: 'Prompt template name and hash' }),
  model: z.string().meta({ description: 'Model file name and hash' }),
});
