import { z } from 'zod';
import { fileReferences, requestId } from './common.js';

export const caseFileProcessRequest = z.object({
  request_id: requestId,
  files: fileReferences,
});
export type CaseFileProcessRequest = z.infer<typeof caseFileProcessRequest>;

export const DOCUMENT_CATEGORIES = [
  'pathology_report',
  'imaging_report',
  'lab_report',
  'admission_record',
  'discharge_summary',
  'surgery_record',
  'medication_record',
  'other',
] as const;
export const documentCategory = z.enum(DOCUMENT_CATEGORIES);
export type DocumentCategory = z.infer<typeof documentCategory>;

export const caseFileProcessResponse = z.object({
  results: z
    .array(
      z.object({
        upload_file_id: z.number().int(),
        desensitized_url: z.string().meta({
          description:
            'Signed, expiring URL of the de-identified file: an image in the format sent (BMP comes back as PNG), a PDF as a new image-only PDF',
        }),
        category: documentCategory.meta({ description: 'Kind of document, from its text by rules, refined by the LLM when it is ready (additive field)' }),
        pages: z.number().int().min(1).meta({ description: 'Pages in the file (additive field)' }),
        redactions: z.number().int().min(0).meta({ description: 'Boxes painted over personal data (additive field)' }),
        page_redactions: z
          .array(z.record(z.string(), z.number().int().min(0)))
          .meta({
            description:
              'Per page, in order: boxes painted by kind of datum (name, resident_id, phone, hospital_id, birth_date, address, email, passport, insurance_number, identifier); {} for a page with none (additive field)',
          }),
      }),
    )
    .meta({ description: 'One result per requested file, in request order' }),
});
export type CaseFileProcessResponse = z.infer<typeof caseFileProcessResponse>;

export const caseOcrRequest = z.object({
  request_id: requestId,
  files: fileReferences,
  include_lines: z.boolean().optional().meta({
    description: "Also answer each page's recognised lines with their boxes, `pages` in every result (additive field, for the operator's console; default false)",
  }),
});
export type CaseOcrRequest = z.infer<typeof caseOcrRequest>;

const recognized = z.string().nullable().optional();

const pixelBox = z.object({ x0: z.number(), y0: z.number(), x1: z.number(), y1: z.number() });
const recognizedPage = z.object({
  width: z.number().int().meta({ description: 'Pixels of the page as read: the image turned upright' }),
  height: z.number().int(),
  rotation: z.number().min(0).lt(360).meta({
    description:
      'Degrees clockwise the image was turned about its centre to read it straight and upright (any angle for a photo taken askew), onto a canvas grown to hold it; boxes are in the turned image',
  }),
  lines: z.array(z.object({ text: z.string(), box: pixelBox })),
});

export const caseOcrResponse = z.object({
  request_id: z.string(),
  patient_info: z
    .object({
      name: recognized.meta({ description: "Patient name as written after its label (姓名/患者/Name)" }),
      age: recognized.meta({ description: 'Age in whole years as a string of digits: "56" for 年龄：56岁; null when given in months or days' }),
      cancer_type: recognized.meta({ description: 'Cancer type by organ from the diagnosis, in its language, e.g. 肺癌, 乳腺癌, liver cancer' }),
      stage: recognized.meta({ description: 'Stage as "IIIA" (Roman, no 期) or TNM as written without spaces, e.g. "pT2N1M0"' }),
    })
    .meta({ description: 'Read from all files together; a field found nowhere, or not certain, is null (never guessed)' }),
  ocr_results: z
    .array(
      z.object({
        upload_file_id: z.number().int(),
        ocr_result: z.string().meta({ description: 'Text in reading order: lines joined by newlines, pages of a file too; no spaces between Chinese characters' }),
        pages: z.array(recognizedPage).optional().meta({ description: 'Only when the request sets include_lines (additive field)' }),
      }),
    )
    .meta({ description: 'One result per requested file, in request order' }),
});
export type CaseOcrResponse = z.infer<typeof caseOcrResponse>;
