/**
 * AI-5: every file fetched safely, split into pages (text layer or OCR), its text returned in
 * request order; patient_info from rules over all the text, refined by the LLM when it is ready.
 * One bad file fails the request, its upload_file_id named in the message.
 */
import type { CaseOcrRequest, CaseOcrResponse } from '../../contract/case-files.js';
import type { FileReference } from '../../contract/common.js';
import { openDocument, type OpenedDocument } from '../../engines/documents/index.js';
import type { OcrPage } from '../../engines/types.js';
import { GatewayError, isGatewayError } from '../../errors.js';
import { runAtMost } from '../../platform/concurrency.js';
import type { OperationContext } from '../context.js';
import { extractPatientInfo, type PatientInfo } from './patient-info.js';
import { REFINE_MAX_TOKENS, mergeRefined, refineMessages, refinedAnswer } from './refine.js';

/** Files with more pages than this log their progress. */
const PROGRESS_LOG_PAGES = 4;
/**
 * Files read at once: one is fetched and decoded while another's pages are OCRed, and several
 * one-page files keep every worker busy. Each file keeps at most OCR_MAX_RUNNING pages in flight,
 * so one request queues at most twice that in the OCR limiter.
 */
const FILES_IN_FLIGHT = 2;

export async function caseOcr(request: CaseOcrRequest, context: OperationContext): Promise<CaseOcrResponse> {
  context.engines.requireReady('ocr');
  // The first bad file fails the request: the other files' pages stop too.
  const failed = new AbortController();
  const reading = { ...context, signal: AbortSignal.any([context.signal, failed.signal]) };
  const texts = await runAtMost(
    FILES_IN_FLIGHT,
    request.files.map((file) => () => namingFile(file, reading, () => readFile(file, reading))),
  ).catch((error: unknown) => {
    failed.abort(error);
    throw error;
  });
  const ocr_results = request.files.map((file, index) => ({ upload_file_id: file.upload_file_id, ocr_result: texts[index]! }));
  const allText = ocr_results.map((result) => result.ocr_result).join('\n');
  return { request_id: request.request_id, patient_info: await patientInfo(allText, context), ocr_results };
}

/** Any failure of a file names its upload_file_id; an unexpected one becomes `internal`. */
async function namingFile<T>(file: FileReference, context: OperationContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (context.signal.aborted) throw error;
    if (!isGatewayError(error)) {
      throw new GatewayError('internal', `file ${file.upload_file_id}: reading it failed unexpectedly`, { cause: error });
    }
    const message = error.message.startsWith(`file ${file.upload_file_id}`) ? error.message : `file ${file.upload_file_id}: ${error.message}`;
    throw new GatewayError(error.kind, message, {
      retryable: error.retryable,
      ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
      cause: error,
    });
  }
}

async function readFile(file: FileReference, context: OperationContext): Promise<string> {
  const fetched = await context.fetcher.fetch(file.file_url, {
    accept: ['document'],
    signal: context.signal,
    label: `file ${file.upload_file_id}`,
  });
  const document = await openDocument(fetched.bytes, fetched.media, context.documentLimits);
  try {
    let done = 0;
    const pages = Array.from({ length: document.pageCount }, (_, index) => async (): Promise<OcrPage> => {
      const page = await readPage(document, index, context);
      done++;
      if (document.pageCount > PROGRESS_LOG_PAGES) {
        context.log.info({ upload_file_id: file.upload_file_id, pages_done: done, pages: document.pageCount }, 'case-ocr progress');
      }
      return page;
    });
    const read = await runAtMost(context.engines.limiter('ocr').maxRunning, pages);
    return read.map((page) => page.text).filter(Boolean).join('\n');
  } finally {
    await document.close();
  }
}

/** A text-layer page as it is; an image page through the OCR limiter. */
async function readPage(document: OpenedDocument, index: number, context: OperationContext): Promise<OcrPage> {
  const page = await document.page(index);
  if (page.kind === 'text') return page.page;
  return context.engines.run('ocr', context.signal, (engine, signal) => engine.recognize(page.image, signal));
}

async function patientInfo(text: string, context: OperationContext): Promise<PatientInfo> {
  const rules = extractPatientInfo(text);
  if (context.engines.status('llm').state !== 'ready' || !text.trim()) return rules;
  try {
    const answer = await context.engines.run('llm', context.signal, (engine, signal) =>
      engine.generateJson({ messages: refineMessages(text, rules), schema: refinedAnswer, maxTokens: REFINE_MAX_TOKENS }, signal),
    );
    return mergeRefined(rules, answer, text);
  } catch (error) {
    if (context.signal.aborted) throw error;
    context.log.warn({ err_kind: isGatewayError(error) ? error.kind : 'unknown' }, 'patient_info refinement failed; rules answer kept');
    return rules;
  }
}
