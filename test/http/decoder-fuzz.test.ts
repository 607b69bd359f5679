import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/contract/operations.js';
import { FUZZ } from '../support/contract-fuzz.js';
import { fileReference, startFileServer, type FileServer } from '../../scripts/lib/file-server.js';
import { startGateway, postFiles, type TestGateway } from '../../scripts/lib/gateway.js';
import { HOSTILE_PDFS, applyMutation, mutations } from '../support/hostile-files.js';
import { fixturePath } from '../../scripts/lib/paths.js';
import { BlankOcrEngine, enginesWith } from '../../scripts/lib/stand-in-engines.js';
import { readFileSync } from 'node:fs';

/** A 24-bit BMP of `width` × `height` grey pixels (no fixture: sharp cannot write BMP). */
function bmp(width: number, height: number): Buffer {
  const row = Math.ceil((width * 3) / 4) * 4;
  const header = Buffer.alloc(54);
  header.write('BM', 0, 'latin1');
  header.writeUInt32LE(54 + row * height, 2);
  header.writeUInt32LE(54, 10);
  header.writeUInt32LE(40, 14);
  header.writeInt32LE(width, 18);
  header.writeInt32LE(height, 22);
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(24, 28);
  header.writeUInt32LE(row * height, 34);
  return Buffer.concat([header, Buffer.alloc(row * height, 0x80)]);
}

const BASES: Record<string, Buffer> = {
  png: readFileSync(fixturePath('ocr', 'report1.png')),
  jpeg: readFileSync(fixturePath('ocr', 'report1-noisy.jpg')),
  tiff: readFileSync(fixturePath('ocr', 'reports-2page.tiff')),
  webp: readFileSync(fixturePath('ocr', 'report2.webp')),
  bmp: bmp(64, 48),
  pdf: readFileSync(fixturePath('ocr', 'report1-text.pdf')),
};
/** Decoding stays within this, or the test says which file did not. */
const ANSWER_WITHIN_MS = 15_000;
/**
 * Each PDF is read in a worker thread of its own (a V8 isolate with pdf.js loaded, run from
 * source here through tsx), and a page of OCR_MAX_PAGE_PIXELS is a canvas of its own: the peak
 * is transient (80 PDFs one after another settle near 230 MB), the bound catches a runaway.
 */
const RSS_GROWTH_LIMIT = 1536 * 1024 * 1024;
const RUNS_PER_KIND = Math.min(FUZZ.runs, Number(process.env.FUZZ_DECODER_RUNS ?? 25));

/**
 * Decoder fuzzing through case-ocr: mutated and truncated files of every kind a document may
 * be, and hand-made hostile PDFs, served by a local file server and decoded by the real
 * decoders (sharp, bmp-js, pdf.js); only reading is skipped (a blank OCR engine). Each answer
 * is a 200 or a 4xx naming the file's upload_file_id, in bounded time and memory, and no temp
 * folder is left behind.
 */
describe('decoder fuzzing: broken and hostile documents', () => {
  let gateway: TestGateway;
  let server: FileServer;
  let temp: string;
  const originalTmp = process.env.TMPDIR;
  const served = new Map<string, Buffer>();
  let nextId = 1;
  let peakRss = 0;
  let baselineRss = 0;
  let sampler: NodeJS.Timeout;

  beforeAll(async () => {
    temp = await mkdtemp(join(tmpdir(), 'decoder-fuzz-'));
    server = await startFileServer((request, response) => {
      const bytes = served.get(request.url ?? '');
      if (bytes) response.end(bytes);
      else response.writeHead(404).end();
    });
    gateway = await startGateway({ FETCH_ALLOW_LOOPBACK: 'true', LOG_LEVEL: 'warn' }, { engines: enginesWith({ ocr: new BlankOcrEngine() }) });
    process.env.TMPDIR = temp; // the gateway's temp folders, not its data dir, land here
    baselineRss = process.memoryUsage().rss;
    sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  });
  afterAll(async () => {
    clearInterval(sampler);
    await gateway?.close();
    await server?.close();
    process.env.TMPDIR = originalTmp;
    await rm(temp, { recursive: true, force: true });
  });

  async function check(bytes: Buffer, name: string): Promise<void> {
    const id = nextId++;
    served.set(`/${id}-${name}`, bytes);
    const started = performance.now();
    const { status, json } = await postFiles(gateway, OPERATIONS.caseOcr.path, `fuzz-${id}`, [fileReference(server, id, `${id}-${name}`)]);
    served.delete(`/${id}-${name}`);
    expect(performance.now() - started, name).toBeLessThan(ANSWER_WITHIN_MS);
    if (status === 200) return;
    expect([status, json.error.kind], `${name}: ${json.error.message}`).toEqual([expect.toSatisfy((s: number) => s >= 400 && s < 500), expect.any(String)]);
    expect(json.error.message).toMatch(new RegExp(`\\bfile ${id}\\b`));
  }

  it.each(Object.keys(BASES))('mutated and truncated %s files', async (kind) => {
    const base = BASES[kind]!;
    await fc.assert(
      fc.asyncProperty(mutations(base.length), (mutation) => check(applyMutation(base, mutation), `x.${kind}`)),
      { seed: FUZZ.seed, numRuns: RUNS_PER_KIND, interruptAfterTimeLimit: FUZZ.routeMs, markInterruptAsFailure: false, endOnFailure: true },
    );
  }, FUZZ.routeMs + 60_000);

  it.each(Object.keys(HOSTILE_PDFS))('the hostile PDF %s', async (name) => {
    await check(HOSTILE_PDFS[name]!, `${name}.pdf`);
  });

  it('stayed within its memory, left no temp folder, and still answers', async () => {
    expect(peakRss - baselineRss).toBeLessThan(RSS_GROWTH_LIMIT);
    // tsx keeps its compile cache in the temp folder of the PDF threads run from source (not from dist/).
    expect((await readdir(temp)).filter((entry) => !entry.startsWith('tsx-'))).toEqual([]);
    expect((await gateway.app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });
});
