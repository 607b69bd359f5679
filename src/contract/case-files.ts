import { z } from 'zod';
import { fileReferences, requestId } from './common.js';

export const caseFileProcessRequest = z.object({
  request_id: requestId,
  files: fileReferences,
});
export type CaseFileProcessRequest = z.infer<typeof caseFileProcessRequest>;

export const caseFileProcessResponse = z.object({
  results: z
    .array(
      z.object({
        upload_file_id: z.number().int(),
        desensitized_url: z.string().meta({ description: 'Signed, expiring URL of the de-identified file' }),
      }),
    )
    .meta({ description: 'One result per requested file, in request order' }),
});
export type CaseFileProcessResponse = z.infer<typeof caseFileProcessResponse>;

export const caseOcrRequest = z.object({
  request_id: requestId,
  files: fileReferences,
});
export type CaseOcrRequest = z.infer<typeof caseOcrRequest>;

const recognized = z.string().nullable().optional();

export const caseOcrResponse = z.object({
  request_id: z.string(),
  patient_info: z.object({
    name: recognized,
    age: recognized.meta({ description: 'Age as a string' }),
    cancer_type: recognized,
    stage: recognized,
  }),
  ocr_results: z.array(z.object({ upload_file_id: z.number().int(), ocr_result: z.string() })),
});
export type CaseOcrResponse = z.infer<typeof caseOcrResponse>;
