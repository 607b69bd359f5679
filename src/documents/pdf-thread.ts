/**
 * A PDF read in a worker thread of its own (pdf-worker.ts), so parsing and rendering a long or
 * hostile PDF never stalls the event loop (`/healthz`, other requests). The thread lives while
 * the document is open; close() ends it.
 */
import type { Worker } from 'node:worker_threads';
import { GatewayError } from '../errors.js';
import { siblingWorker } from '../platform/process/index.js';
import type { PdfReply, PdfWorkerData, WireError } from './pdf-protocol.js';
import type { DocumentLimits, DocumentPage, OpenedDocument, PageOptions } from './types.js';

interface Pending {
  resolve(page: DocumentPage): void;
  reject(error: unknown): void;
}

export function openPdfInWorker(bytes: Buffer, limits: DocumentLimits): Promise<OpenedDocument> {
  // A copy of its own, moved to the thread rather than copied again (a long PDF is hundreds of MB).
  const data: PdfWorkerData = { bytes: new Uint8Array(bytes), limits };
  const worker = siblingWorker(import.meta.url, 'pdf-worker', { workerData: data, transferList: [data.bytes.buffer as ArrayBuffer] });
  const pending = new Map<number, Pending>();
  let nextId = 0;
  return new Promise<OpenedDocument>((resolve, reject) => {
    const failAll = (error: unknown) => {
      reject(error);
      for (const call of pending.values()) call.reject(error);
      pending.clear();
    };
    worker.on('error', (error) => failAll(new Error(`the PDF reader failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => failAll(new Error(`the PDF reader exited (code ${code})`)));
    worker.on('message', (message: PdfReply) => {
      if (message.type === 'opened') resolve(openedDocument(worker, message.pageCount, pending, () => nextId++));
      else if (message.type === 'failed') {
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

function openedDocument(worker: Worker, pageCount: number, pending: Map<number, Pending>, newId: () => number): OpenedDocument {
  return {
    pageCount,
    page: (index: number, options?: PageOptions) =>
      new Promise<DocumentPage>((resolve, reject) => {
        const id = newId();
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, index, ...(options ? { options } : {}) });
      }),
    close: async () => {
      await worker.terminate();
    },
  };
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
