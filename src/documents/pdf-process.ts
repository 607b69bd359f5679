/**
 * A PDF read in a child process of its own (pdf-worker.ts), so parsing and rendering a long or
 * hostile PDF never stalls the event loop (`/healthz`, other requests), and a PDF that needs too
 * much ends only its own process. pdf.js keeps decoded streams and images in typed arrays, outside
 * the JavaScript heap that `--max-old-space-size` limits: an image whose JPEG header claims more
 * pixels than its PDF dictionary, or a content stream that inflates to a gigabyte, would grow
 * without bound. So the process's resident memory is watched, and it is ended once it passes its
 * budget or spends too long on one page. The process lives while the document is open; close()
 * ends it, and each document gets a new one.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { GatewayError } from '../errors.js';
import { residentBytes, siblingModule } from '../platform/process/index.js';
import type { PdfReply, PdfWorkerData, WireError } from './pdf-protocol.js';
import type { DocumentLimits, DocumentPage, OpenedDocument, PageOptions } from './types.js';

const MB = 1024 * 1024;
/** A rendered page held at once: its RGBA canvas, its PNG, the PNG decoded again and its RGB raster. */
const PAGE_BYTES_PER_PIXEL = 16;
const WATCH_EVERY_MS = 50;

interface Pending {
  index: number;
  resolve(page: DocumentPage): void;
  reject(error: unknown): void;
}

/**
 * The resident memory a PDF reader may add to what it holds once loaded (Node, pdf.js, sharp,
 * the canvas library: about 450 MB run from source): its heap and one page at the pixel limit.
 */
export function pdfMemoryBudget(limits: DocumentLimits): number {
  return limits.pdfHeapMb * MB + PAGE_BYTES_PER_PIXEL * limits.maxPagePixels;
}

export function openPdfInProcess(bytes: Buffer, limits: DocumentLimits): Promise<OpenedDocument> {
  const { path, execArgv } = siblingModule(import.meta.url, 'pdf-worker');
  const child = fork(path, [], {
    execArgv: [...execArgv, `--max-old-space-size=${limits.pdfHeapMb}`],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-4096)));
  const pending = new Map<number, Pending>();
  let opened = false;
  const watch = watchReader(child, limits, () => !opened || pending.size > 0);
  let ended: Error | undefined;
  let nextId = 0;
  return new Promise<OpenedDocument>((resolve, reject) => {
    const failAll = (error: Error) => {
      ended ??= error;
      watch.stop();
      reject(ended);
      for (const call of pending.values()) call.reject(ended);
      pending.clear();
    };
    child.on('error', (error) => failAll(new Error(`the PDF reader failed: ${error.message}`, { cause: error })));
    child.on('exit', (code, signal) => failAll(readerEnd(watch.overrun() ?? outOfHeap(stderr), [...pending.values()], limits, code, signal)));
    child.on('message', (message: PdfReply) => {
      watch.progressed();
      if (message.type === 'opened') {
        opened = true;
        const page = (index: number, options?: PageOptions) =>
          new Promise<DocumentPage>((resolvePage, rejectPage) => {
            if (ended) return rejectPage(ended);
            const id = nextId++;
            if (pending.size === 0) watch.progressed();
            pending.set(id, { index, resolve: resolvePage, reject: rejectPage });
            child.send({ id, index, ...(options ? { options } : {}) });
          });
        resolve({ pageCount: message.pageCount, page, close: () => endReader(child) });
      } else if (message.type === 'failed') {
        reject(fromWire(message.error));
        void endReader(child);
      } else if (message.type !== 'ready') {
        const call = pending.get(message.id);
        pending.delete(message.id);
        if (message.type === 'page') call?.resolve(withBuffers(message.page));
        else call?.reject(fromWire(message.error));
      }
    });
    const data: PdfWorkerData = { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), limits };
    child.send(data);
  });
}

type Overrun = 'memory' | 'time';

/**
 * Ends the reader once its resident memory grows by more than pdfMemoryBudget, or once it has
 * worked (opening, or with pages asked for) limits.pdfPageTimeoutMs without answering; both
 * counted from its first word, once it is loaded. Says which.
 */
function watchReader(child: ChildProcess, limits: DocumentLimits, working: () => boolean) {
  const budget = pdfMemoryBudget(limits);
  let overrun: Overrun | undefined;
  let progressAt: number | undefined;
  let loaded: number | undefined;
  const end = (why: Overrun) => {
    overrun ??= why;
    child.kill('SIGKILL');
  };
  const timer = setInterval(() => {
    if (progressAt !== undefined && working() && performance.now() - progressAt > limits.pdfPageTimeoutMs) end('time');
    // Memory is counted from a reading taken once the reader is loaded, not one taken while it loaded.
    if (child.pid === undefined || progressAt === undefined) return;
    void residentBytes(child.pid).then((bytes) => {
      if (bytes === undefined) return;
      loaded ??= bytes;
      if (bytes - loaded > budget) end('memory');
    });
  }, WATCH_EVERY_MS);
  return {
    progressed: () => void (progressAt = performance.now()),
    overrun: () => overrun,
    stop: () => clearInterval(timer),
  };
}

/** V8's last words when a process runs out of its heap, or out of memory for a typed array. */
function outOfHeap(stderr: string): Overrun | undefined {
  return /heap out of memory|Array buffer allocation failed/i.test(stderr) ? 'memory' : undefined;
}

/**
 * A reader that was ended for its memory or time was sent a PDF too big to read (413), naming
 * the pages it was reading; any other end is the gateway's failure.
 */
function readerEnd(overrun: Overrun | undefined, reading: Pending[], limits: DocumentLimits, code: number | null, signal: string | null): Error {
  if (!overrun) return new Error(`the PDF reader exited (${signal ?? `code ${code}`})`);
  const pages = reading.map((call) => call.index + 1);
  const what = pages.length ? `page ${pages.join(', ')} of the PDF` : 'the PDF';
  const message =
    overrun === 'memory'
      ? `${what} needs more memory than the ${Math.round(pdfMemoryBudget(limits) / MB)} MB allowed (OCR_PDF_HEAP_MB, OCR_MAX_PAGE_PIXELS)`
      : `${what} takes longer to read than the ${limits.pdfPageTimeoutMs} ms allowed (OCR_PDF_PAGE_TIMEOUT_MS)`;
  return new GatewayError('payload_too_large', message);
}

function endReader(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

function fromWire(error: WireError): Error {
  return error.kind ? new GatewayError(error.kind, error.message, { retryable: error.retryable ?? false }) : new Error(error.message);
}

/** Buffers cross a process as plain Uint8Arrays: make them Buffers again, without copying. */
function withBuffers(page: DocumentPage): DocumentPage {
  const buffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const raster = page.raster ? { raster: { ...page.raster, rgb: buffer(page.raster.rgb) } } : {};
  return page.kind === 'image' ? { kind: 'image', image: buffer(page.image), ...raster } : { kind: 'text', page: page.page, ...raster };
}
