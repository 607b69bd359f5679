/**
 * AI-5: every file fetched safely, split into pages (text layer or OCR), its text returned in
 * request order; patient_info from rules over all the text, refined by the LLM when it is ready.
 * One bad file fails the request, its upload_file_id named in the message.
 */
import type { CaseOcrRequest, CaseOcrResponse } from '../../contract/case-files.js';
import type { FileReference } from '../../contract/common.js';
import type { OpenedDocument } from '../../engines/documents/index.js';
import type { OcrPage } from '../../engines/types.js';
import type { OperationContext } from '../context.js';
import { forEachFile, forEachPage, recognize, withDocument } from '../documents.js';
import { refineWithLlm } from '../llm-calls.js';
import { extractPatientInfo, type PatientInfo } from './patient-info.js';
import { REFINE_MAX_TOKENS, mergeRefined, refineMessages, refinedAnswer } from './refine.js';

export async function caseOcr(request: CaseOcrRequest, context: OperationContext): Promise<CaseOcrResponse> {
  context.engines.requireReady('ocr');
  const texts = await forEachFile(request.files, context, readFile);
  const ocr_results = request.files.map((file, index) => ({ upload_file_id: file.upload_file_id, ocr_result: texts[index]! }));
  const allText = ocr_results.map((result) => result.ocr_result).join('\n');
  return { request_id: request.request_id, patient_info: await patientInfo(allText, context), ocr_results };
}

function readFile(file: FileReference, context: OperationContext): Promise<string> {
  return withDocument(file, context, async (document) => {
    const pages = await forEachPage(file, document, context, (index) => readPage(document, index, context));
    return pages.map((page) => page.text).filter(Boolean).join('\n');
  });
}

/** A text-layer page as it is; an image page through the OCR limiter. */
async function readPage(document: OpenedDocument, index: number, context: OperationContext): Promise<OcrPage> {
  const page = await document.page(index);
  return page.kind === 'text' ? page.page : recognize(page.image, context);
}

function patientInfo(text: string, context: OperationContext): Promise<PatientInfo> {
  const rules = extractPatientInfo(text);
  if (!text.trim()) return Promise.resolve(rules);
  return refineWithLlm(
    context,
    'patient_info',
    rules,
    () => ({ messages: refineMessages(text, rules), schema: refinedAnswer, maxTokens: REFINE_MAX_TOKENS }),
    (answer) => mergeRefined(rules, answer, text),
  );
}
