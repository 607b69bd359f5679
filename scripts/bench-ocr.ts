/**
 * The gateway's OCR (case-ocr over HTTP, the engine OCR_ENGINE names, PP-OCR by default) against
 * the raw engine (the PP-OCR pipeline called in-process on the same page files, no HTTP, no
 * document decoding, no worker threads) and the native tesseract CLI (Debian tesseract-ocr, same
 * languages) on the same pages in one run: pages/minute and CER side by side, with the ratios.
 * Every side runs as many pages at once as the gateway has workers, the CLI with
 * OMP_THREAD_LIMIT=1. The models' own time on each page gives the ceiling any pipeline on them
 * could reach on this machine. Then a PDF with a text layer against the same page scanned, and the
 * gateway's memory over a long run (--pages, default 200). The raw pipeline runs the recogniser at
 * the gateway's precision (OCR_PRECISION, int8 unless set to fp32).
 *
 *   apt-get install -y tesseract-ocr tesseract-ocr-chi-sim
 *   npm run bench:ocr [-- --workers 2 --rounds 2 --pages 200]
 *   OCR_PRECISION=fp32 npm run bench:ocr
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type ort from 'onnxruntime-node';
import { promisify } from 'node:util';
import { DETECTION_DEFAULTS } from '../src/engines/ocr/ppocr/detect.js';
import { readPreparedManifest, recogniserFor, verifiedModelFiles } from '../src/engines/ocr/ppocr/prepared.js';
import { loadConfig } from '../src/config/index.js';
import { loadModels, readPage, type PipelineSettings, type PpOcrModels } from '../src/engines/ocr/ppocr/pipeline.js';
import { runAtMost } from '../src/platform/concurrency.js';
import { groundTruth, OCR_FIXTURES } from './lib/ocr-fixtures.js';
import { characterErrorRate, pct, startOcrEvalGateway } from './lib/eval-gateway.js';
import { fixturePath } from './lib/paths.js';
import { photoTruth } from './lib/photos.js';
import { median } from './lib/stats.js';

const run = promisify(execFile);
/** Rendered reports (CER against their text) and the real phone photos (their identifiers read). */
const PAGES = ['report1.png', 'report2.png', 'report3.png', 'report1-noisy.jpg', 'report1-rot90.jpg', 'np2016_bloodtestreport2.jpg', 'np2016_bloodtestreport1.jpg'];
const pathOf = (page: string) => (page.startsWith('np2016') ? fixturePath('photos', page) : join(OCR_FIXTURES, page));

interface Side {
  pagesPerMinute: number;
  meanCer: number;
  /** Per distinct page: its CER (rendered) or share of identifiers read (photos), and its median latency over the rounds. */
  perPage: Map<string, { cer: number; ms: number }>;
}

async function measure(pages: string[], concurrency: number, read: (path: string) => Promise<string>): Promise<Side> {
  const truth = groundTruth();
  const started = performance.now();
  const results = await runAtMost(
    concurrency,
    pages.map((page) => async () => {
      const pageStarted = performance.now();
      const text = await read(pathOf(page));
      return { page, ms: performance.now() - pageStarted, cer: errorOf(page, text, truth) };
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const perPage = new Map(
    PAGES.map((page) => {
      const mine = results.filter((r) => r.page === page);
      return [page, { cer: mine[0]!.cer, ms: median(mine.map((r) => r.ms)) }];
    }),
  );
  const rendered = results.filter((r) => !r.page.startsWith('np2016'));
  return {
    pagesPerMinute: (pages.length / seconds) * 60,
    meanCer: rendered.reduce((sum, r) => sum + r.cer, 0) / Math.max(1, rendered.length),
    perPage,
  };
}

/** CER on a rendered page; on a photo, the share of its identifiers not read. */
function errorOf(page: string, text: string, truth: ReturnType<typeof groundTruth>): number {
  const personal = photoTruth()[page]?.personal;
  if (!personal) return characterErrorRate(text, truth[page]!.text);
  const compact = text.replace(/\s+/g, '');
  return personal.filter((identifier) => !compact.includes(identifier)).length / personal.length;
}

/**
 * Seconds the three models spend on each page, one page at a time in-process (the pipeline's own
 * work left out): no pipeline on these models can read faster on this machine.
 */
async function modelSeconds(models: PpOcrModels, paths: string[], settings: PipelineSettings): Promise<number[]> {
  let spent = 0;
  const timed = (session: ort.InferenceSession) =>
    new Proxy(session, {
      get(target, property) {
        if (property !== 'run') return Reflect.get(target, property) as unknown;
        return async (...args: Parameters<ort.InferenceSession['run']>) => {
          const started = performance.now();
          try {
            return await target.run(...args);
          } finally {
            spent += performance.now() - started;
          }
        };
      },
    });
  const timedModels = { ...models, detector: timed(models.detector), classifier: timed(models.classifier), recogniser: timed(models.recogniser) };
  const seconds: number[] = [];
  for (const path of paths) {
    spent = 0;
    await readPage(timedModels, await readFile(path), settings, {}, new AbortController().signal);
    seconds.push(spent / 1000);
  }
  return seconds;
}

async function nativeTesseract(path: string, langs: string): Promise<string> {
  const { stdout } = await run('tesseract', [path, 'stdout', '-l', langs], {
    env: { ...process.env, OMP_THREAD_LIMIT: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

/** The process's resident memory in MiB (the gateway and its OCR worker threads share it). */
const rssMiB = () => Math.round(process.memoryUsage().rss / 1024 / 1024);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { workers: { type: 'string', default: '2' }, rounds: { type: 'string', default: '2' }, pages: { type: 'string', default: '200' } },
  });
  const workers = Number(values.workers);
  const pages = Array.from({ length: Number(values.rounds) }, () => PAGES).flat();
  const langs = 'chi_sim+eng';
  const { stdout: version } = await run('tesseract', ['--version']);
  const gateway = await startOcrEvalGateway({ OCR_WORKERS: String(workers), OCR_LANGS: langs });
  const { ppocrDir, precision } = loadConfig().ocr;
  const prepared = await readPreparedManifest(ppocrDir);
  const recogniser = recogniserFor(prepared, precision, 'cpu');
  const models = await loadModels(await verifiedModelFiles(ppocrDir, prepared, recogniser), 1, 'cpu');
  try {
    console.log(`gateway: ${gateway.model}, ${workers} workers`);
    console.log(`raw:     the PP-OCR pipeline in-process, one thread per model call, ${workers} pages at once, recogniser ${recogniser}`);
    console.log(`native:  ${version.split('\n')[0]} (Debian tessdata), OMP_THREAD_LIMIT=1, ${workers} at once`);
    console.log(`${pages.length} pages (${PAGES.join(', ')} × ${values.rounds})\n`);
    await gateway.caseOcr([pathOf(PAGES[0]!)]); // warm-up
    const viaGateway = await measure(pages, workers, async (path) => (await gateway.caseOcr([path])).body.ocr_results[0]!.ocr_result);
    const settings: PipelineSettings = { detection: DETECTION_DEFAULTS, batchSize: 1, threads: 1, device: 'cpu' };
    const raw = await measure(pages, workers, async (path) => (await readPage(models, await readFile(path), settings, {}, new AbortController().signal)).text);
    const native = await measure(pages, workers, (path) => nativeTesseract(path, langs));
    console.log('(photos: the share of their 7 identifiers not read, in the CER columns)');
    console.log('page'.padEnd(28), 'gateway ms'.padStart(11), 'raw ms'.padStart(8), 'native ms'.padStart(10), 'gateway CER'.padStart(12), 'raw CER'.padStart(8), 'native CER'.padStart(11));
    for (const page of PAGES) {
      const [g, r, n] = [viaGateway.perPage.get(page)!, raw.perPage.get(page)!, native.perPage.get(page)!];
      console.log(page.padEnd(28), g.ms.toFixed(0).padStart(11), r.ms.toFixed(0).padStart(8), n.ms.toFixed(0).padStart(10), pct(g.cer).padStart(12), pct(r.cer).padStart(8), pct(n.cer).padStart(11));
    }
    console.log();
    console.log('side'.padEnd(10), 'pages/min'.padStart(10), 'mean CER of the rendered pages'.padStart(32));
    for (const [name, side] of [['gateway', viaGateway], ['raw', raw], ['native', native]] as const) {
      console.log(name.padEnd(10), side.pagesPerMinute.toFixed(1).padStart(10), pct(side.meanCer).padStart(32));
    }
    const modelTime = await modelSeconds(models, pages.map(pathOf), settings);
    const ceiling = (workers * 60 * modelTime.length) / modelTime.reduce((sum, s) => sum + s, 0);
    console.log('models'.padEnd(10), ceiling.toFixed(1).padStart(10), `   the models' own time alone, ${workers} workers scaling perfectly: the ceiling`);
    console.log(`gateway/native throughput: ${(viaGateway.pagesPerMinute / native.pagesPerMinute).toFixed(2)}×`);
    console.log(`models/native throughput:  ${(ceiling / native.pagesPerMinute).toFixed(2)}× (the most any pipeline on these models could reach here)`);
    console.log(`gateway/raw throughput:    ${(viaGateway.pagesPerMinute / raw.pagesPerMinute).toFixed(2)}×`);

    const pdfMs = async (file: string) => {
      const times: number[] = [];
      for (let i = 0; i < Number(values.rounds); i++) times.push((await gateway.caseOcr([join(OCR_FIXTURES, file)])).ms);
      return Math.min(...times);
    };
    const textLayer = await pdfMs('report1-text.pdf');
    const scanned = await pdfMs('report1-scanned.pdf');
    console.log(`\nPDF page, best of ${values.rounds}: text layer ${textLayer.toFixed(0)} ms, scanned ${scanned.toFixed(0)} ms; scanned/text ${(scanned / textLayer).toFixed(1)}×`);

    const long = Array.from({ length: Number(values.pages) }, (_, i) => pathOf(PAGES[i % PAGES.length]!));
    const samples: string[] = [`0: ${rssMiB()} MiB`];
    let done = 0;
    await runAtMost(
      workers,
      long.map((path) => async () => {
        await gateway.caseOcr([path]);
        if (++done % 50 === 0) samples.push(`${done}: ${rssMiB()} MiB`);
      }),
    );
    console.log(`resident memory of the gateway process (with its ${workers} OCR workers) over ${long.length} pages: ${samples.join(', ')}`);
  } finally {
    await gateway.close();
  }
}

await main();
