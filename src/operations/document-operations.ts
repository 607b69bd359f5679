/**
 * What the document operations (AI-4, AI-5) share: files fetched safely and opened as pages,
 * read a few at a time, pages through the OCR limiter, and failures that name their file.
 */
import type { FileReference } from '../contract/common.js';
import { openDocument, type OpenedDocument } from '../documents/index.js';
import type { AuditReader, OcrPage, PageLie, RecognizeOptions } from '../engines/types.js';
import { GatewayError, isGatewayError } from '../errors.js';
import type { SniffedMedia } from '../platform/fetch/index.js';
import { runAtMost } from '../platform/concurrency.js';
import type { OperationContext } from './context.js';

/** Files with more pages than this log their progress. */
const PROGRESS_LOG_PAGES = 4;
/**
 * Files worked on at once: one is fetched and decoded while another's pages are read, and
 * several one-page files keep every worker busy. Each file keeps at most OCR_MAX_RUNNING pages
 * in flight, so one request queues at most twice that in the OCR limiter.
 */
const FILES_IN_FLIGHT = 2;

/**
 * `work` for every file, FILES_IN_FLIGHT at a time, results in request order. The first failure
 * fails the request and stops the other files' pages; it names its upload_file_id.
 */
export async function forEachFile<T, C extends OperationContext>(
  files: readonly FileReference[],
  context: C,
  work: (file: FileReference, context: C) => Promise<T>,
): Promise<T[]> {
  const failed = new AbortController();
  const scoped: C = { ...context, signal: AbortSignal.any([context.signal, failed.signal]) };
  return runAtMost(
    FILES_IN_FLIGHT,
    files.map((file) => () => namingFile(file, scoped, () => work(file, scoped))),
  ).catch((error: unknown) => {
    failed.abort(error);
    throw error;
  });
}

/** Any failure of a file names its upload_file_id; an unexpected one becomes `internal`. */
async function namingFile<T>(file: FileReference, context: OperationContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (context.signal.aborted) throw error;
    if (!isGatewayError(error)) {
      throw new GatewayError('internal', `file ${file.upload_file_id}: processing it failed unexpectedly`, { cause: error });
    }
    const message = error.message.startsWith(`file ${file.upload_file_id}`) ? error.message : `file ${file.upload_file_id}: ${error.message}`;
    throw new GatewayError(error.kind, message, {
      retryable: error.retryable,
      ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
      cause: error,
    });
  }
}

/** The file fetched and opened; `work` gets its pages, and the document is closed after. */
export async function withDocument<T>(
  file: FileReference,
  context: OperationContext,
  work: (document: OpenedDocument, media: SniffedMedia) => Promise<T>,
): Promise<T> {
  const fetched = await context.fetcher.fetch(file.file_url, {
    accept: ['document'],
    signal: context.signal,
    label: `file ${file.upload_file_id}`,
    log: context.log,
  });
  const document = await openDocument(fetched.bytes, fetched.media, context.documentLimits);
  try {
    return await work(document, fetched.media);
  } finally {
    await document.close();
  }
}

/** `work` for every page, as many at once as the OCR engine runs, results in page order. */
export async function forEachPage<T>(
  file: FileReference,
  document: OpenedDocument,
  context: OperationContext,
  work: (index: number) => Promise<T>,
): Promise<T[]> {
  let done = 0;
  const pages = Array.from({ length: document.pageCount }, (_, index) => async () => {
    const result = await work(index);
    done++;
    if (document.pageCount > PROGRESS_LOG_PAGES) {
      context.log.info({ upload_file_id: file.upload_file_id, pages_done: done, pages: document.pageCount }, 'document progress');
    }
    return result;
  });
  return runAtMost(context.engines.limiter('ocr').maxRunning, pages);
}

/** One image through the OCR limiter. */
export function recognize(image: Buffer, context: OperationContext, options?: RecognizeOptions): Promise<OcrPage> {
  return context.engines.run('ocr', context.signal, (engine, signal) => engine.recognize(image, signal, options));
}

/**
 * The data `dataIn` finds in one image read by each reader the OCR engine has in turn (the
 * first, then the independent one), in one turn of the limiter, as de-identification reads (see
 * RecognizeOptions.eraseRulingLines) as the page is known to lie, up to the first reader that finds some: the
 * readers after it are not asked, since painting what it found changes the page they would read.
 */
export function dataByEachReader<T>(
  image: Buffer,
  context: OperationContext,
  lie: PageLie,
  dataIn: (reading: OcrPage, reader: AuditReader) => T[],
): Promise<T[]> {
  const options = { rotation: lie.rotation, ...(lie.perspective ? { perspective: lie.perspective } : {}), eraseRulingLines: true };
  return context.engines.run('ocr', context.signal, async (engine, signal) => {
    const found = dataIn(await engine.recognize(image, signal, options), 'first');
    if (found.length || !engine.independentReader) return found;
    return dataIn(await engine.recognize(image, signal, { ...options, reader: 'independent' }), 'independent');
  });
}
