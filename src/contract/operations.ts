import type { z } from 'zod';
import { asrRequest, asrResponse } from './asr.js';
import { reportAdviceDraftRequest, reportAdviceDraftResponse } from './advice.js';
import { caseFileProcessRequest, caseFileProcessResponse, caseOcrRequest, caseOcrResponse } from './case-files.js';
import { adviceErrorBody, errorBody } from './errors.js';
import { speechProcessRequest, speechProcessResponse } from './speech.js';
import { EXAMPLES } from './examples.js';

/**
 * One name per operation: its endpoint id (the URL's last segment, the folder of its code under
 * src/operations/ and docs/operations/, the `operation` label of logs and metrics), written in
 * camelCase where code and the OpenAPI document need an identifier. The specification's labels
 * (AI-1 … AI-7) are kept for people.
 */
export type OperationId = 'speech-process' | 'report-advice-draft' | 'case-file-process' | 'case-ocr' | 'asr';

export const AI_PREFIX = '/ai/v1';

/** An operation's wire contract; `Id` is one of the gateway's own by default, any path segment for one served beside them. */
export interface OperationContract<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType, Id extends string = OperationId> {
  id: Id;
  /** The id in camelCase: the OpenAPI operationId. */
  operationId: string;
  /** The specification's name for it, e.g. "AI-4". */
  label: string;
  path: `/ai/v1/${Id}`;
  summary: string;
  successStatus: 200 | 202;
  request: Req;
  response: Res;
  /** The shape of its errors: fields the schema does not name are left out. */
  errorBody: z.ZodType;
  /**
   * An operation that accepts work and finishes it later also answers for its jobs, by request_id:
   * `GET {path}/{request_id}` (status) and `POST {path}/{request_id}/redeliver`, under these
   * `operation` labels in logs and metrics.
   */
  jobRoutes?: { status: string; redeliver: string };
  example: { request: z.input<Req>; response: z.output<Res> };
}

const camelCase = (id: string) => id.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());

function contract<Req extends z.ZodType, Res extends z.ZodType>(
  spec: Omit<OperationContract<Req, Res>, 'path' | 'operationId'>,
): OperationContract<Req, Res> {
  return { ...spec, operationId: camelCase(spec.id), path: `${AI_PREFIX}/${spec.id}` };
}

export const OPERATIONS = {
  speechProcess: contract({
    id: 'speech-process',
    label: 'AI-1 & AI-2',
    summary: "Judge which required points a doctor's speech covers, and organize it into structured points and a conclusion",
    successStatus: 200,
    request: speechProcessRequest,
    response: speechProcessResponse,
    errorBody,
    example: EXAMPLES.speechProcess,
  }),
  reportAdviceDraft: contract({
    id: 'report-advice-draft',
    label: 'AI-3',
    summary: 'Accept a report advice draft job; the draft is delivered later by callback to /internal/ai/callback',
    successStatus: 202,
    request: reportAdviceDraftRequest,
    response: reportAdviceDraftResponse,
    errorBody: adviceErrorBody,
    jobRoutes: { status: 'report-advice-status', redeliver: 'report-advice-redeliver' },
    example: EXAMPLES.reportAdviceDraft,
  }),
  caseFileProcess: contract({
    id: 'case-file-process',
    label: 'AI-4',
    summary: 'De-identify case files (images, PDFs) and classify them',
    successStatus: 200,
    request: caseFileProcessRequest,
    response: caseFileProcessResponse,
    errorBody,
    example: EXAMPLES.caseFileProcess,
  }),
  caseOcr: contract({
    id: 'case-ocr',
    label: 'AI-5',
    summary: 'Read text and basic patient information (name, age, cancer type, stage) from case files by OCR',
    successStatus: 200,
    request: caseOcrRequest,
    response: caseOcrResponse,
    errorBody,
    example: EXAMPLES.caseOcr,
  }),
  asr: contract({
    id: 'asr',
    label: 'AI-7',
    summary: 'Transcribe a voice recording into text with millisecond segments',
    successStatus: 200,
    request: asrRequest,
    response: asrResponse,
    errorBody,
    example: EXAMPLES.asr,
  }),
} as const;
