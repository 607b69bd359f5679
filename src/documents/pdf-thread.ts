/**
 * A PDF read in a worker thread of its own (pdf-worker.ts), so parsing and rendering a long or
 * hostile PDF never stalls the event loop (`/healthz`, other requests), and a PDF that needs more
 * than its heap limit ends only its own thread. The thread lives while the document is open;
 * close() ends it, and each document gets a new one.
 */
import { GatewayError } from '../errors.js';
import { siblingWorker } from '../platform/process/index.js';
import type { PdfReply, PdfWorkerData, WireError } from './pdf-protocol.js';
import type { DocumentLimits, DocumentPage, OpenedDocument, PageOptions } from './types.js';

interface Pending {
  index: number;
  resolve(page: DocumentPage): void;
  reject(error: unknown): void;
}

export function openPdfInWorker(bytes: Buffer, limits: DocumentLimits): Promise<OpenedDocument> {
  // A copy of its own, moved to the thread rather than copied again (a long PDF is hundreds of MB).
  const data: PdfWorkerData = { bytes: new Uint8Array(bytes), limits };
  const worker = siblingWorker(import.meta.url, 'pdf-worker', {
    workerData: data,
    transferList: [data.bytes.buffer as ArrayBuffer],
    resourceLimits: { maxOldGenerationSizeMb: limits.pdfHeapMb },
  });
  const pending = new Map<number, Pending>();
  let ended: Error | undefined;
  let nextId = 0;
  return new Promise<OpenedDocument>((resolve, reject) => {
    const failAll = (error: Error) => {
      ended ??= error;
      reject(ended);
      for (const call of pending.values()) call.reject(ended);
      pending.clear();
    };
    worker.on('error', (error) => failAll(threadFailure(error, [...pending.values()], limits)));
    worker.on('exit', (code) => failAll(new Error(`the PDF reader exited (code ${code})`)));
    worker.on('message', (message: PdfReply) => {
      if (message.type === 'opened') {
        const page = (index: number, options?: PageOptions) =>
          new Promise<DocumentPage>((resolvePage, rejectPage) => {
            if (ended) return rejectPage(ended);
            const id = nextId++;
            pending.set(id, { index, resolve: resolvePage, reject: rejectPage });
            worker.postMessage({ id, index, ...(options ? { options } : {}) });
          });
        resolve({ pageCount: message.pageCount, page, close: async () => void (await worker.terminate()) });
      } else if (message.type === 'failed') {
        reject(fromWire(message.error));
        void worker.terminate();
      } else {
        const call = pending.get(message.id);
        pending.delete(message.id);
        if (message.type === 'page') call?.resolve(withBuffers(message.page));
        else call?.reject(fromWire(message.error));
      }
    });
  });
}

/** A thread that ran out of its heap was sent a PDF too big to read (413), naming the pages it was reading. */
function threadFailure(error: Error, reading: Pending[], limits: DocumentLimits): Error {
  if ((error as NodeJS.ErrnoException).code !== 'ERR_WORKER_OUT_OF_MEMORY') {
    return new Error(`the PDF reader failed: ${error.message}`, { cause: error });
  }
  const pages = reading.map((call) => call.index + 1);
  const what = pages.length ? `page ${pages.join(', ')} of the PDF` : 'the PDF';
  return new GatewayError('payload_too_large', `${what} needs more memory than the ${limits.pdfHeapMb} MB allowed (OCR_PDF_HEAP_MB)`, {
    cause: error,
  });
}

function fromWire(error: WireError): Error {
  return error.kind ? new GatewayError(error.kind, error.message, { retryable: error.retryable ?? false }) : new Error(error.message);
}

/** Buffers cross a thread as plain Uint8Arrays: make them Buffers again, without copying. */
function withBuffers(page: DocumentPage): DocumentPage {
  const buffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const raster = page.raster ? { raster: { ...page.raster, rgb: buffer(page.raster.rgb) } } : {};
  return page.kind === 'image' ? { kind: 'image', image: buffer(page.image), ...raster } : { kind: 'text', page: page.page, ...raster };
}
