import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/contract/operations.js';
import { FUZZ } from '../support/contract-fuzz.js';
import { fileReference, startFileServer, type FileServer } from '../../scripts/lib/file-server.js';
import { startGateway, postFiles, type TestGateway } from '../../scripts/lib/gateway.js';
import { HOSTILE_BMPS, HOSTILE_PDFS, applyMutation, bmpWith, bmp, contentBombPdf, imageBombPdf, jpegSizeBombPdf, mutations } from '../support/hostile-files.js';
import { pdfMemoryBudget } from '../../src/documents/pdf-process.js';
import { childProcessMemory } from '../../src/platform/process/index.js';
import { fixturePath } from '../../scripts/lib/paths.js';
import { BlankOcrEngine, enginesWith } from '../../scripts/lib/stand-in-engines.js';
import { readFileSync } from 'node:fs';

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
const RUNS_PER_KIND = Math.min(FUZZ.runs, Number(process.env.FUZZ_DECODER_RUNS ?? 25));
/**
 * What reading the ~250 KB image bomb may add: any rendered page costs about 450 MB here (a PDF
 * reader run from source, its canvas and PNG); without pdf.js's image limit the bomb took 3.4 GB.
 */
const BOMB_RSS_GROWTH_LIMIT = 1024 * 1024 * 1024;
/** The page time limit of this test's gateway (OCR_PDF_PAGE_TIMEOUT_MS): a fuzzed page reads in well under a second. */
const PAGE_TIMEOUT_MS = 5_000;
/**
 * A PDF reader is ended once its memory grows past its budget, looked at every 50 ms: its loaded
 * code (about 450 MB run from source), its budget, and what it may add before it is seen. Without
 * that watch, the JPEG whose header lies took 3.7 GB and the content stream of a gigabyte of
 * spaces 2.5 GB.
 */
const READER_RSS_GROWTH_LIMIT = pdfMemoryBudget({ maxPages: 100, maxPagePixels: 50_000_000, pdfHeapMb: 512, pdfPageTimeoutMs: PAGE_TIMEOUT_MS }) + 768 * 1024 * 1024;
/**
 * The gateway's resident memory and its PDF readers' (each PDF is read in a process of its own,
 * run from source here through tsx) over the whole run: the peaks are transient, and the readers
 * are ended at their budget, so the bound is a reader's and catches a runaway.
 */
const RSS_GROWTH_LIMIT = READER_RSS_GROWTH_LIMIT;
/** A 7000 × 7000 BMP decoded on the event loop held it for about 5 s; in its thread the loop waits at most a few hundred ms. */
const BMP_LOOP_DELAY_LIMIT_MS = 2_000;

/** RLE8 of one colour, `side` × `side` (49 MP at 7000, under OCR_MAX_PAGE_PIXELS) in about 400 KB. */
function largeRleBmp(side: number): Buffer {
  const runs = Buffer.from(Array.from({ length: Math.ceil((side * side) / 255) }, () => [255, 0]).flat());
  return bmpWith({ width: side, height: side, bitDepth: 8, compression: 1 }, Buffer.concat([runs, Buffer.from([0, 1])]));
}

/** Resident memory of this process (the gateway) and its child processes (its PDF readers). */
async function residentWithChildren(): Promise<number> {
  return process.memoryUsage().rss + (await childProcessMemory()).reduce((sum, child) => sum + child.residentBytes, 0);
}

/** Samples residentWithChildren every `everyMs` while it runs; stop() gives the peak. */
function rssSampler(everyMs: number) {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => void residentWithChildren().then((rss) => (peak = Math.max(peak, rss))), everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

async function peakRssDuring(work: () => Promise<void>): Promise<number> {
  const sampler = rssSampler(10);
  let peak = 0;
  try {
    await work();
  } finally {
    peak = sampler.stop();
  }
  return peak;
}

/**
 * Decoder fuzzing through case-ocr: mutated and truncated files of every kind a document may
 * be, and hand-made hostile PDFs, served by a local file server and decoded by the real
 * decoders (sharp, bmp-ts, pdf.js); only reading is skipped (a blank OCR engine). Each answer
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
  let baselineRss = 0;
  let sampler: ReturnType<typeof rssSampler>;

  beforeAll(async () => {
    temp = await mkdtemp(join(tmpdir(), 'decoder-fuzz-'));
    server = await startFileServer((request, response) => {
      const bytes = served.get(request.url ?? '');
      if (bytes) response.end(bytes);
      else response.writeHead(404).end();
    });
    gateway = await startGateway(
      { FETCH_ALLOW_LOOPBACK: 'true', LOG_LEVEL: 'warn', OCR_PDF_PAGE_TIMEOUT_MS: String(PAGE_TIMEOUT_MS) },
      { engines: enginesWith({ ocr: new BlankOcrEngine() }) },
    );
    process.env.TMPDIR = temp; // the gateway's temp folders, not its data dir, land here
    baselineRss = process.memoryUsage().rss;
    sampler = rssSampler(20);
  });
  afterAll(async () => {
    sampler.stop();
    await gateway?.close();
    await server?.close();
    process.env.TMPDIR = originalTmp;
    await rm(temp, { recursive: true, force: true });
  });

  /** The status of case-ocr on the file; a refusal must be a 4xx naming the file. */
  async function check(bytes: Buffer, name: string): Promise<{ status: number; message?: string }> {
    const id = nextId++;
    served.set(`/${id}-${name}`, bytes);
    const started = performance.now();
    const { status, json } = await postFiles(gateway, OPERATIONS.caseOcr.path, `fuzz-${id}`, [fileReference(server, id, `${id}-${name}`)]);
    served.delete(`/${id}-${name}`);
    expect(performance.now() - started, name).toBeLessThan(ANSWER_WITHIN_MS);
    if (status === 200) return { status };
    expect([status, json.error.kind], `${name}: ${json.error.message}`).toEqual([expect.toSatisfy((s: number) => s >= 400 && s < 500), expect.any(String)]);
    expect(json.error.message).toMatch(new RegExp(`\\bfile ${id}\\b`));
    return { status, message: json.error.message };
  }

  it.each(Object.keys(BASES))('mutated and truncated %s files', async (kind) => {
    const base = BASES[kind]!;
    await fc.assert(
      fc.asyncProperty(mutations(base.length), async (mutation) => void (await check(applyMutation(base, mutation), `x.${kind}`))),
      { seed: FUZZ.seed, numRuns: RUNS_PER_KIND, interruptAfterTimeLimit: FUZZ.routeMs, markInterruptAsFailure: false, endOnFailure: true },
    );
  }, FUZZ.routeMs + 60_000);

  it.each(Object.keys(HOSTILE_PDFS))('the hostile PDF %s', async (name) => {
    await check(HOSTILE_PDFS[name]!, `${name}.pdf`);
  });

  it('refuses a small PDF whose image inflates past the pixel limit, naming the page, in bounded memory', async () => {
    const bomb = imageBombPdf(16_000);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const before = process.memoryUsage().rss;
    let answer: Awaited<ReturnType<typeof check>> | undefined;
    const peak = await peakRssDuring(async () => void (answer = await check(bomb, 'image-bomb.pdf')));
    expect(answer?.status).toBe(413);
    expect(answer?.message).toMatch(/page 1 of the PDF .*OCR_MAX_PAGE_PIXELS/);
    expect(peak - before).toBeLessThan(BOMB_RSS_GROWTH_LIMIT);
  }, 60_000);

  it.each([
    ['a JPEG whose own header claims 24000 × 24000 pixels where its PDF says 100 × 100', () => jpegSizeBombPdf(24_000), /page 1 of the PDF needs more memory .*OCR_PDF_HEAP_MB/],
    ['a content stream that inflates to a gigabyte of spaces', () => contentBombPdf(1024), /page 1 of the PDF (needs more memory|takes longer to read)/],
  ])('refuses a PDF with %s, naming the page, in bounded memory and time', async (_, build, message) => {
    const bomb = build();
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const before = await residentWithChildren();
    let answer: Awaited<ReturnType<typeof check>> | undefined;
    const peak = await peakRssDuring(async () => void (answer = await check(bomb, 'bomb.pdf')));
    expect(answer?.status).toBe(413);
    expect(answer?.message).toMatch(message);
    expect(peak - before).toBeLessThan(READER_RSS_GROWTH_LIMIT);
  }, 60_000);

  it.each(Object.keys(HOSTILE_BMPS))('the hostile BMP %s', async (name) => {
    const { bytes, status } = HOSTILE_BMPS[name]!;
    expect((await check(bytes, `${name}.bmp`)).status).toBe(status);
  });

  it('decodes a large BMP without holding the event loop', async () => {
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    try {
      expect((await check(largeRleBmp(7000), 'large.bmp')).status).toBe(200);
    } finally {
      lag.disable();
    }
    expect(lag.max / 1e6).toBeLessThan(BMP_LOOP_DELAY_LIMIT_MS);
  }, 60_000);

  it('stayed within its memory, left no temp folder, and still answers', async () => {
    expect(sampler.stop() - baselineRss).toBeLessThan(RSS_GROWTH_LIMIT);
    // tsx keeps its compile cache in the temp folder of the PDF threads run from source (not from dist/).
    expect((await readdir(temp)).filter((entry) => !entry.startsWith('tsx-'))).toEqual([]);
    expect((await gateway.app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });
});
