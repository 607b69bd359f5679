/**
 * AI-5: every file fetched safely, split into pages (text layer or OCR), its text returned in
 * request order; patient_info from the layout of all the pages (the personal-data module the
 * de-identification uses too), refined by the LLM when it is ready.
 * One bad file fails the request, its upload_file_id named in the message.
 */
import type { CaseOcrRequest, CaseOcrResponse } from '../../contract/case-files.js';
import type { FileReference } from '../../contract/common.js';
import type { OpenedDocument } from '../../documents/index.js';
import type { OcrPage } from '../../engines/types.js';
import { OPERATIONS } from '../../contract/operations.js';
import type { OperationContext } from '../context.js';
import { statelessOperation } from '../operation.js';
import { forEachFile, forEachPage, recognize, withDocument } from '../document-operations.js';
import { refineWithLlm } from '../llm-calls.js';
import { readPatientInfo, type PatientInfo } from '../personal-data/patient-info.js';
import { REFINE_MAX_TOKENS, mergeRefined, refineMessages, refinedAnswer } from './refine.js';

type RecognizedPage = NonNullable<CaseOcrResponse['ocr_results'][number]['pages']>[number];

async function caseOcr(request: CaseOcrRequest, context: OperationContext): Promise<CaseOcrResponse> {
  context.engines.requireReady('ocr');
  const files = await forEachFile(request.files, context, readFile);
  const ocr_results = request.files.map((file, index) => {
    const pages = files[index]!;
    return {
      upload_file_id: file.upload_file_id,
      ocr_result: pages.map((page) => page.text).filter(Boolean).join('\n'),
      ...(request.include_lines ? { pages: pages.map(linesOf) } : {}),
    };
  });
  const allText = ocr_results.map((result) => result.ocr_result).join('\n');
  return { request_id: request.request_id, patient_info: await patientInfo(files.flat(), allText, context), ocr_results };
}

export const caseOcrOperation = statelessOperation(OPERATIONS.caseOcr, caseOcr);

function readFile(file: FileReference, context: OperationContext): Promise<OcrPage[]> {
  return withDocument(file, context, (document) => forEachPage(file, document, context, (index) => readPage(document, index, context)));
}

/** The page's lines as its text has them, each boxed by the union of its words' boxes. */
function linesOf(page: OcrPage): RecognizedPage {
  const texts = page.text.split('\n').filter((line) => line.trim());
  const boxes = new Map<number, RecognizedPage['lines'][number]['box']>();
  for (const { line, box } of page.words) {
    const union = boxes.get(line);
    boxes.set(
      line,
      union
        ? { x0: Math.min(union.x0, box.x0), y0: Math.min(union.y0, box.y0), x1: Math.max(union.x1, box.x1), y1: Math.max(union.y1, box.y1) }
        : { ...box },
    );
  }
  const lines = [...boxes.entries()].sort(([a], [b]) => a - b).map(([line, box]) => ({ text: texts[line] ?? '', box }));
  return { width: page.width, height: page.height, rotation: page.rotation, lines };
}

/** A text-layer page as it is; an image page through the OCR limiter. */
async function readPage(document: OpenedDocument, index: number, context: OperationContext): Promise<OcrPage> {
  const page = await document.page(index);
  return page.kind === 'text' ? page.page : recognize(page.image, context);
}

function patientInfo(pages: readonly OcrPage[], text: string, context: OperationContext): Promise<PatientInfo> {
  const rules = readPatientInfo(pages);
  if (!text.trim()) return Promise.resolve(rules);
  return refineWithLlm(
    context,
    'patient_info',
    rules,
    () => ({ messages: refineMessages(text, rules), schema: refinedAnswer, maxTokens: REFINE_MAX_TOKENS }),
    (answer) => mergeRefined(rules, answer, text),
  );
}
