/**
 * The PDF reader's process (started by pdf-process.ts): opens the one PDF its parent sends first
 * with pdf.js (parsing, text layers and rendering are CPU work that would stall the gateway's
 * event loop) and answers its pages one at a time, in the order asked, until its parent ends it
 * or goes away.
 */
import { isGatewayError } from '../errors.js';
import { notePdfjsWarning, openPdf } from './pdf.js';
import type { PageRequest, PdfReply, PdfWorkerData, WireError } from './pdf-protocol.js';

const reply = (message: PdfReply) => void process.send!(message);
// Its own name in /proc, so the memory metrics do not count it as the LLM process (`node`).
process.title = 'pdf-reader';
// Nothing but pdf.js runs in this process: its warnings say which images it left out.
// eslint-disable-next-line no-console -- pdf.js warns through console.warn, and nothing else here does
console.warn = notePdfjsWarning;
// A reader whose gateway is gone has no one to answer.
process.on('disconnect', () => process.exit(0));

function wire(error: unknown): WireError {
  if (isGatewayError(error)) return { kind: error.kind, message: error.message, retryable: error.retryable };
  return { message: error instanceof Error ? error.message : String(error) };
}

async function serve({ bytes, limits }: PdfWorkerData): Promise<void> {
  try {
    const document = await openPdf(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), limits);
    // One page at a time: a warning belongs to the page being read, and only one page's canvas is held.
    let reading = Promise.resolve();
    process.on('message', (request: PageRequest) => {
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
}

process.once('message', (data: PdfWorkerData) => void serve(data));
// pdf.js would load its worker half when the PDF is opened: loaded now, it is part of the code
// the reader's memory budget and time limit count from, not of what the PDF costs.
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
reply({ type: 'ready' });
