/**
 * AI-4, de-identification (the folder bears the endpoint's id, case-file-process; the settings
 * and metrics the operator sees keep the short form, DEID_* and gateway_deid_*): every file
 * fetched safely and redacted page by page (fail-closed, see redact-page.ts), then classified
 * from its text. The produced files are stored only once every file of the request is clean,
 * so a failed request leaves nothing behind; the originals are never stored. `results` follow
 * the requested files in order.
 */
import type { CaseFileProcessRequest, CaseFileProcessResponse, DocumentCategory } from '../../contract/case-files.js';
import type { FileReference } from '../../contract/common.js';
import type { OpenedDocument } from '../../documents/index.js';
import { isQuarterTurn } from '../../engines/ocr/index.js';
import type { OcrPage } from '../../engines/types.js';
import { isGatewayError } from '../../errors.js';
import type { SniffedMedia } from '../../platform/fetch/index.js';
import { OPERATIONS } from '../../contract/operations.js';
import type { OperationContext } from '../context.js';
import type { Operation } from '../operation.js';
import { dataByEachReader, forEachFile, forEachPage, recognize, withDocument } from '../document-operations.js';
import { refineWithLlm } from '../llm-calls.js';
import { CLASSIFY_MAX_TOKENS, classifyAnswer, classifyMessages, mergeClassification } from './classify-llm.js';
import { classifyByRules } from './classify.js';
import { assemble, outputFormatFor, outputSize, type EncodedPage, type OutputFormat } from './output.js';
import { deidentificationMetrics, type DeidentificationObserver } from './metrics.js';
import { redactPage, UnreadablePage, type RedactedPage, type TimeStage } from './redact-page.js';

interface ProducedFile {
  bytes: Buffer;
  contentType: string;
  pages: number;
  redactions: number;
  pageRedactions: Array<Record<string, number>>;
  text: string;
}

type Result = CaseFileProcessResponse['results'][number];

/** AI-4's own settings and metrics, beside the request's context. */
interface DeidentificationSettings {
  /** The page confidence below which a page is withheld. */
  minConfidence: number;
  /** The least share of the first reading's text an audit reading must read again. */
  minReadShare: number;
  /** How long produced files stay downloadable, in seconds. */
  fileUrlTtlSeconds: number;
  observer: DeidentificationObserver;
}

type DeidentificationContext = OperationContext & { deidentification: DeidentificationSettings };

export const caseFileProcessOperation: Operation<typeof OPERATIONS.caseFileProcess.request> = {
  contract: OPERATIONS.caseFileProcess,
  start: ({ config, metrics }) => {
    const deidentification: DeidentificationSettings = {
      minConfidence: config.deid.minConfidence,
      minReadShare: config.deid.auditMinReadPercent / 100,
      fileUrlTtlSeconds: config.security.fileUrlTtlSeconds,
      observer: deidentificationMetrics(metrics),
    };
    return { handle: (request, context) => processCaseFiles(request, { ...context, deidentification }) };
  },
};

async function processCaseFiles(request: CaseFileProcessRequest, context: DeidentificationContext): Promise<CaseFileProcessResponse> {
  context.engines.requireReady('ocr');
  const produced = await forEachFile(request.files, context, async (file, scoped) => {
    const output = await withDocument(file, scoped, (document, media) => deidentify(file, document, media, scoped));
    return { output, category: await categorize(output.text, scoped) };
  });
  return { results: await store(request.files, produced, context) };
}

async function deidentify(file: FileReference, document: OpenedDocument, media: SniffedMedia, context: DeidentificationContext): Promise<ProducedFile> {
  const format = outputFormatFor(media.mediaType);
  const timeStage = stageTimer(context);
  const pages = await forEachPage(file, document, context, (index) => deidentifyPage(document, index, format, context, timeStage));
  const encoded: EncodedPage[] = pages.map((page) => ({ encoded: page.encoded, size: page.size }));
  const bytes = await timeStage('encode', () => assemble(encoded, format));
  const pageRedactions = pages.map((page) => ({ ...page.redactions }) as Record<string, number>);
  const redactions = pageRedactions.reduce((sum, kinds) => sum + Object.values(kinds).reduce((a, b) => a + b, 0), 0);
  return {
    bytes,
    contentType: format.contentType,
    pages: pages.length,
    redactions,
    pageRedactions,
    text: pages.map((page) => page.text).join('\n'),
  };
}

async function deidentifyPage(
  document: OpenedDocument,
  index: number,
  format: OutputFormat,
  context: DeidentificationContext,
  timeStage: TimeStage,
): Promise<RedactedPage & { size: EncodedPage['size']; text: string }> {
  const page = await document.page(index, { raster: true });
  const raster = page.raster!;
  const reading = page.kind === 'text' ? page.page : await timeStage('ocr', () => recognize(page.image, context, { eraseRulingLines: true }));
  const closer = page.kind === 'image' && needsCloserLook(reading) ? await timeStage('ocr', () => closerLooks(page.image, context)) : [];
  try {
    if (page.kind === 'image') requireReadable(reading, index, context.deidentification.minConfidence);
    const redacted = await redactPage({
      pageNumber: index + 1,
      raster,
      reading,
      alsoRead: closer,
      format,
      timeStage,
      dataByEachReader: (image, lie, dataIn) => dataByEachReader(image, context, lie, dataIn),
      minReadShare: context.deidentification.minReadShare,
      onReadShare: (reader, share) => context.deidentification.observer.readShare(reader, share),
    });
    context.deidentification.observer.audit(redacted.outcome);
    for (const [kind, count] of Object.entries(redacted.redactions)) context.deidentification.observer.redactions(kind, count);
    return { ...redacted, size: outputSize(raster), text: reading.text };
  } catch (error) {
    if (isGatewayError(error) && error.kind === 'deidentification_failed') {
      const outcome = error instanceof UnreadablePage ? 'unreadable' : 'failed';
      context.deidentification.observer.audit(outcome);
      context.log.warn({ page: index + 1, outcome }, 'de-identification withheld the file');
    }
    throw error;
  }
}

/**
 * What OCR cannot read it can neither redact nor audit: a page whose text was found but read
 * with a low mean confidence (a blurred fax, a photo out of focus) is withheld rather than
 * returned with names a person may still read, even when no line of it was legible enough to
 * keep. A page with no text found at all (an image without writing) passes.
 */
function requireReadable(reading: OcrPage, index: number, minConfidence: number): void {
  const textFound = reading.words.length > 0 || (reading.illegibleLines ?? 0) > 0;
  if (!textFound || reading.confidence >= minConfidence) return;
  throw new UnreadablePage(
    `page ${index + 1} was read with confidence ${Math.round(reading.confidence)}, under the ${minConfidence} (DEID_MIN_CONFIDENCE) needed to de-identify it reliably; send a flat, well-lit scan`,
  );
}

/**
 * Lines detected at under this share of the page's own scale may have lost small print: a photo
 * taken at a slant shrinks its far rows (an outpatient number 6 pixels high at the detector's
 * scale was not found there, and was at the photo's own).
 */
const SHRUNK_DETECTION = 0.8;

/** A page that lies askew, or whose lines were detected shrunk, is read again looking closer. */
const needsCloserLook = (reading: OcrPage) => !isQuarterTurn(reading.rotation) || (reading.detectionScale ?? 1) < SHRUNK_DETECTION;

/**
 * Such a page is read twice, the second time looking closer (its lines detected at its own
 * resolution, its lie found anew): what either reading finds is painted, each reading's boxes
 * carried to the page through its own turn. A photo that closer look saw taken at a slant (read
 * in its flat view) is read closer once more as it lies: the far rows' faint print reads
 * differently in the two (a name read in one was lost in the other), and both are painted.
 */
async function closerLooks(image: Buffer, context: DeidentificationContext): Promise<OcrPage[]> {
  const closer = await recognize(image, context, { eraseRulingLines: true, closerLook: true });
  if (!closer.perspective) return [closer];
  return [closer, await recognize(image, context, { eraseRulingLines: true, closerLook: true, asItLies: true })];
}

function stageTimer(context: DeidentificationContext): TimeStage {
  return async (stage, work) => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      context.deidentification.observer.stage(stage, (performance.now() - started) / 1000);
    }
  };
}

function categorize(text: string, context: DeidentificationContext): Promise<DocumentCategory> {
  const rules = classifyByRules(text);
  if (!text.trim()) return Promise.resolve(rules.category);
  return refineWithLlm(
    context,
    'category',
    rules.category,
    () => ({ messages: classifyMessages(text, rules), schema: classifyAnswer, maxTokens: CLASSIFY_MAX_TOKENS }),
    (answer) => mergeClassification(rules, answer),
  );
}

/** Every produced file into the blob store, or none: a failure removes those already stored. */
async function store(
  files: readonly FileReference[],
  produced: ReadonlyArray<{ output: ProducedFile; category: DocumentCategory }>,
  context: DeidentificationContext,
): Promise<Result[]> {
  const stored: string[] = [];
  try {
    const results: Result[] = [];
    for (const [index, { output, category }] of produced.entries()) {
      const blob = await context.stores.blobs.put(output.bytes, { contentType: output.contentType, ttlSeconds: context.deidentification.fileUrlTtlSeconds });
      stored.push(blob.key);
      results.push({
        upload_file_id: files[index]!.upload_file_id,
        desensitized_url: context.stores.fileUrls.urlFor(blob.key, context.deidentification.fileUrlTtlSeconds),
        category,
        pages: output.pages,
        redactions: output.redactions,
        page_redactions: output.pageRedactions,
      });
    }
    return results;
  } catch (error) {
    await Promise.all(stored.map((key) => context.stores.blobs.delete(key)));
    throw error;
  }
}
