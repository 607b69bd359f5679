/**
 * Event-loop lag of the gateway while it reads a long PDF: case-ocr on a PDF of N copies of
 * the text-layer fixture page (pdf.js parses every page and its text layer) and, with
 * --scanned, of the scanned fixture (every page rendered), with a blank OCR engine so only the
 * PDF work is measured. Prints the lag (p50, p99, max, from monitorEventLoopDelay) and the
 * latency of /healthz probed every 50 ms meanwhile.
 *
 *   npm run bench:event-loop                 (200 pages, text layer)
 *   npm run bench:event-loop -- --pages 50 --scanned
 */
import { readFile } from 'node:fs/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import { OPERATIONS } from '../src/contract/operations.js';
import { fileReference, startFileServer } from './lib/file-server.js';
import { postFiles, startGateway } from './lib/gateway.js';
import { fixturePath } from './lib/paths.js';
import { BlankOcrEngine, enginesWith } from './lib/stand-in-engines.js';
import { percentile } from './lib/stats.js';

const { values } = parseArgs({ options: { pages: { type: 'string', default: '200' }, scanned: { type: 'boolean', default: false } } });
const pages = Number(values.pages);

async function longPdf(): Promise<Buffer> {
  const source = await PDFDocument.load(await readFile(fixturePath('ocr', values.scanned ? 'report1-scanned.pdf' : 'report1-text.pdf')));
  const target = await PDFDocument.create();
  const [page] = await target.copyPages(source, [0]);
  for (let i = 0; i < pages; i++) target.addPage(i === 0 ? page! : (await target.copyPages(source, [0]))[0]!);
  return Buffer.from(await target.save());
}

const pdf = await longPdf();
const server = await startFileServer((_request, response) => response.end(pdf));
const gateway = await startGateway(
  { FETCH_ALLOW_LOOPBACK: 'true', OCR_MAX_PAGES: String(pages), LOG_LEVEL: 'warn', FETCH_MAX_BYTES: String(512 * 1024 * 1024) },
  { engines: enginesWith({ ocr: new BlankOcrEngine() }) },
);
const lag = monitorEventLoopDelay({ resolution: 10 });
const probes: number[] = [];
let probing = true;
const probe = (async () => {
  while (probing) {
    const started = performance.now();
    await gateway.app.inject({ url: '/healthz' });
    probes.push(performance.now() - started);
    await new Promise((wake) => setTimeout(wake, 50));
  }
})();
lag.enable();
const started = performance.now();
const { status } = await postFiles(gateway, OPERATIONS.caseOcr.path, 'bench-event-loop', [fileReference(server, 1, 'long.pdf')]);
const seconds = (performance.now() - started) / 1000;
lag.disable();
probing = false;
await probe;
await gateway.close();
await server.close();

const ms = (ns: number) => (ns / 1e6).toFixed(1);
console.log(`${pages} pages (${values.scanned ? 'scanned, rendered' : 'text layer'}), ${(pdf.length / 1e6).toFixed(1)} MB: HTTP ${status} in ${seconds.toFixed(1)} s`);
console.log(`event-loop lag ms: p50 ${ms(lag.percentile(50))}  p99 ${ms(lag.percentile(99))}  max ${ms(lag.max)}`);
console.log(`/healthz ms (${probes.length} probes): p50 ${percentile(probes, 0.5).toFixed(1)}  p99 ${percentile(probes, 0.99).toFixed(1)}  max ${Math.max(...probes).toFixed(1)}`);
