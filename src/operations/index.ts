import { asrOperation } from './asr/asr.js';
import { caseFileProcessOperation } from './case-file-process/case-file-process.js';
import { caseOcrOperation } from './case-ocr/case-ocr.js';
import type { Operation } from './operation.js';
import { reportAdviceDraftOperation } from './report-advice-draft/report-advice-draft.js';
import { speechProcessOperation } from './speech-process/speech-process.js';

export type { OperationContext, OperationHandler } from './context.js';
export type { DeferredJobs, Operation, OperationEnvironment, StartedOperation } from './operation.js';

/** The AI operations the gateway serves under /ai/v1: one line each. */
export const GATEWAY_OPERATIONS: readonly Operation[] = [
  speechProcessOperation,
  reportAdviceDraftOperation,
  caseFileProcessOperation,
  caseOcrOperation,
  asrOperation,
];
