/**
 * The PDF worker thread: opens one PDF with pdf.js (parsing, text layers and rendering are CPU
 * work that would stall the gateway's event loop) and answers its pages one at a time, in the
 * order asked, until the thread is terminated.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isGatewayError } from '../errors.js';
import { notePdfjsWarning, openPdf } from './pdf.js';
import type { PageRequest, PdfReply, PdfWorkerData, WireError } from './pdf-protocol.js';

const port = parentPort!;
const { bytes, limits } = workerData as PdfWorkerData;
const reply = (message: PdfReply) => port.postMessage(message);
// Nothing but pdf.js runs in this thread: its warnings say which images it left out.
// eslint-disable-next-line no-console -- pdf.js warns through console.warn, and nothing else here does
console.warn = notePdfjsWarning;

function wire(error: unknown): WireError {
  if (isGatewayError(error)) return { kind: error.kind, message: error.message, retryable: error.retryable };
  return { message: error instanceof Error ? error.message : String(error) };
}

try {
  const document = await openPdf(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), limits);
  // One page at a time: pdf.js renders on this one thread anyway, a warning belongs to the page
  // being read, and only one page's canvas is held.
  let reading = Promise.resolve();
  port.on('message', (request: PageRequest) => {
    reading = reading.then(() =>
      document.page(request.index, request.options).then(
        (page) => reply({ type: 'page', id: request.id, page }),
        (error: unknown) => reply({ type: 'pageFailed', id: request.id, error: wire(error) }),
      ),
    );
  });
  reply({ type: 'opened', pageCount: document.pageCount });
} catch (error) {
  reply({ type: 'failed', error: wire(error) });
}
