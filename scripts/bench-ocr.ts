/**
 * OCR speed on three kinds of page, in one run: the small rendered reports (1000×504), full A4
 * pages (150 and 300 dpi, Chinese and English) and the real phone photos. Each kind is read four
 * ways, each with pages/minute and CER (photos: the share of their identifiers not read):
 *   gateway  case-ocr over HTTP to the compiled gateway in a process of its own, as production
 *            runs it (the engine OCR_ENGINE names, PP-OCR by default), as many pages at once as it
 *            has workers; its CPU time is its process's (Linux: /proc), apart from this one's
 *            client, file server and raw reading;
 *   raw      the PP-OCR pipeline in-process, one page at a time, no HTTP, document decoding or
 *            worker threads, scaled by the workers as if they shared nothing;
 *   models   the models alone, as many pages at once as the gateway has workers: each model
 *            call of the raw reading recorded, then replayed by that many threads at the same
 *            time (models-at-once.ts); the ceiling, since no pipeline on these models reads
 *            faster on this machine;
 *   alone    the models' own inference time within the raw reading, scaled by the workers as
 *            if they shared nothing: above the ceiling by whatever two model streams cost each
 *            other;
 *   native   the tesseract CLI (Debian tessdata, the same languages), OMP_THREAD_LIMIT=1, as many
 *            at once as the gateway has workers.
 * Each also in pages per CPU-minute (× workers, as if each worker had a core to itself): the CPU
 * time the reading took, which the other work on a shared machine hardly changes, where
 * pages/minute by the clock follows it. Then a PDF with a text layer against the same page
 * scanned, and the gateway's resident memory over a long run of all the pages in turn (--pages),
 * printed as it goes. Raw and models run at the gateway's settings (OCR_PRECISION, OCR_BATCH,
 * OCR_DET_MAX_SIDE, …). Each round reads a kind's pages every way in turn (gateway, raw, models,
 * native), so that a machine whose speed drifts during the run (a shared one's does) moves every
 * way alike rather than whichever ran last; a kind of few pages reads them several times a round.
 * A reading by the gateway, raw and the models goes untimed first: each worker compiles its code
 * and grows its buffers on its first pages of a kind, which a gateway that has been serving did
 * long before; the rate measured is the one it then keeps.
 *
 *   apt-get install -y tesseract-ocr tesseract-ocr-chi-sim
 *   npm run bench:ocr [-- --workers 2 --rounds 2 --pages 200 --kinds small,a4,photos]
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { readPreparedManifest, recogniserFor, verifiedModelFiles } from '../src/engines/ocr/ppocr/prepared.js';
import { loadConfig } from '../src/config/index.js';
import { ppOcrSettings } from '../src/engines/ocr/index.js';
import { loadModels, readPage, type PipelineSettings, type PpOcrModels } from '../src/engines/ocr/ppocr/pipeline.js';
import { runAtMost } from '../src/platform/concurrency.js';
import { residentBytes } from '../src/platform/process/index.js';
import { A4_FIXTURES, a4Truth, groundTruth, OCR_FIXTURES } from './lib/ocr-fixtures.js';
import { characterErrorRate, pct, startOcrGatewayProcess, type OcrEvalGateway, type OcrGatewayProcess } from './lib/eval-gateway.js';
import { buildGateway } from './lib/gateway-process.js';
import { fixturePath } from './lib/paths.js';
import { photoTruth } from './lib/photos.js';
import { aroundEachCall, ModelReplayers, recordingModels, type RecordedCall } from './lib/models-at-once.js';
import { median } from './lib/stats.js';

const run = promisify(execFile);
const LANGS = 'chi_sim+eng';

interface BenchPage {
  path: string;
  /** The page's error: CER against its text, or on a photo the share of its identifiers not read. */
  error(text: string): number;
}

const KINDS = ['small', 'a4', 'photos'] as const;
type Kind = (typeof KINDS)[number];

function pagesOf(kind: Kind): BenchPage[] {
  if (kind === 'small') {
    const truth = groundTruth();
    return ['report1.png', 'report2.png', 'report3.png', 'report1-noisy.jpg', 'report1-rot90.jpg'].map((file) => ({
      path: join(OCR_FIXTURES, file),
      error: (text) => characterErrorRate(text, truth[file]!.text),
    }));
  }
  if (kind === 'a4') {
    const truth = a4Truth();
    return Object.keys(truth).map((file) => ({ path: join(A4_FIXTURES, file), error: (text) => characterErrorRate(text, truth[file]!.text) }));
  }
  return ['np2016_bloodtestreport2.jpg', 'np2016_bloodtestreport1.jpg'].map((file) => {
    const personal = photoTruth()[file]!.personal!;
    return {
      path: fixturePath('photos', file),
      error: (text) => {
        const compact = text.replace(/\s+/g, '');
        return personal.filter((identifier) => !compact.includes(identifier)).length / personal.length;
      },
    };
  });
}

/** A round reads a kind's pages, each in turn, until it has read at least this many: two photos read once are too few for a rate. */
const LEAST_PAGES_A_ROUND = 16;

const roundOf = (pages: readonly BenchPage[]): BenchPage[] => Array.from({ length: Math.ceil(LEAST_PAGES_A_ROUND / pages.length) }, () => pages).flat();

/** One way of reading a kind's pages: pages/minute, by the clock and by CPU time, mean error, and per page its median time and its error. */
interface Side {
  pagesPerMinute: number;
  pagesPerCpuMinute: number;
  meanError: number;
  perPage: Map<string, { ms: number; error: number }>;
}

interface PageResult {
  page: BenchPage;
  ms: number;
  error: number;
}

/** What one way of reading did over the rounds so far: each page read, and the clock and CPU time it all took. */
interface Tally {
  results: PageResult[];
  ms: number;
  cpuMs: number;
}

const emptyTally = (): Tally => ({ results: [], ms: 0, cpuMs: 0 });

function addTo(tally: Tally, round: Tally): void {
  tally.results.push(...round.results);
  tally.ms += round.ms;
  tally.cpuMs += round.cpuMs;
}

/** CPU time of this process so far (all its threads), in ms. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Pages per minute of `readers` readers, each taking `ms` (clock or CPU) for its share of `pages`. */
const perMinute = (pages: number, ms: number, readers = 1) => (readers * pages * 60_000) / ms;

/**
 * The side a tally gives: its clock time is that of `clockReaders` readers side by side (1 when
 * they really ran at once), its CPU time that of `cpuReaders`, each with a core to itself.
 */
function sideOf(pages: readonly BenchPage[], { results, ms, cpuMs: cpu }: Tally, clockReaders: number, cpuReaders: number): Side {
  const perPage = new Map(
    pages.map((page) => {
      const mine = results.filter((r) => r.page === page);
      return [page.path, { ms: median(mine.map((r) => r.ms)), error: mine[0]!.error }];
    }),
  );
  return {
    pagesPerMinute: perMinute(results.length, ms, clockReaders),
    pagesPerCpuMinute: perMinute(results.length, cpu, cpuReaders),
    meanError: results.reduce((sum, r) => sum + r.error, 0) / Math.max(1, results.length),
    perPage,
  };
}

/**
 * The pages read `concurrency` at once, in the order given; `read` gives the text and, for a
 * reader that runs a process of its own per page, the CPU time that took. Otherwise the CPU time
 * is what `cpuClock` counted meanwhile: this process's, or the gateway process's.
 */
async function measure(
  pages: readonly BenchPage[],
  concurrency: number,
  read: (path: string) => Promise<{ text: string; cpuMs?: number }>,
  cpuClock: () => number = cpuMs,
): Promise<Tally> {
  const started = performance.now();
  const cpuBefore = cpuClock();
  let elsewhere = 0;
  const readings = await runAtMost(
    concurrency,
    pages.map((page) => async () => {
      const pageStarted = performance.now();
      const { text, cpuMs: spent = 0 } = await read(page.path);
      elsewhere += spent;
      return { page, ms: performance.now() - pageStarted, text };
    }),
  );
  const tally = { ms: performance.now() - started, cpuMs: elsewhere || cpuClock() - cpuBefore };
  // Scored once the clocks have stopped: an A4 page's edit distance is no part of its reading.
  return { ...tally, results: readings.map(({ page, ms, text }) => ({ page, ms, error: page.error(text) })) };
}

/** Wraps the models so that every inference adds its time to `clock.ms` and its CPU time to `clock.cpuMs`. */
function timedModels(models: PpOcrModels, clock: Clock): PpOcrModels {
  return aroundEachCall(models, async (_model, call, run) => {
    const started = performance.now();
    const cpuStarted = cpuMs();
    try {
      return await run(call);
    } finally {
      clock.ms += performance.now() - started;
      clock.cpuMs += cpuMs() - cpuStarted;
    }
  });
}

/** The raw pipeline reading each page once, one at a time, and the models' own time within that reading. */
async function rawAndModels(models: PpOcrModels, pages: readonly BenchPage[], settings: PipelineSettings): Promise<{ raw: Tally; models: Tally }> {
  const inModels: Clock = { ms: 0, cpuMs: 0 };
  const timed = timedModels(models, inModels);
  const raw = emptyTally();
  const inference = emptyTally();
  for (const page of pages) {
    const bytes = await readFile(page.path);
    const before = { ...inModels };
    const started = performance.now();
    const cpuStarted = cpuMs();
    const { text } = await readPage(timed, bytes, settings, {}, new AbortController().signal);
    const ms = performance.now() - started;
    raw.ms += ms;
    raw.cpuMs += cpuMs() - cpuStarted;
    const error = page.error(text);
    raw.results.push({ page, ms, error });
    inference.results.push({ page, ms: inModels.ms - before.ms, error });
  }
  return { raw, models: { ...inference, ms: inModels.ms, cpuMs: inModels.cpuMs } };
}

/** Each page's model calls, as the raw pipeline makes them, for the models to replay (a reading untimed). */
async function recordedCalls(models: PpOcrModels, pages: readonly BenchPage[], settings: PipelineSettings): Promise<RecordedCall[][]> {
  const recorded: RecordedCall[][] = [];
  for (const page of pages) {
    const calls: RecordedCall[] = [];
    await readPage(recordingModels(models, calls), await readFile(page.path), settings, {}, new AbortController().signal);
    recorded.push(calls);
  }
  return recorded;
}

interface Clock {
  ms: number;
  cpuMs: number;
}

/** The CLI's text, and its CPU time as /usr/bin/time reports it (the last line of stderr). */
async function nativeTesseract(path: string): Promise<{ text: string; cpuMs: number }> {
  const { stdout, stderr } = await run('/usr/bin/time', ['-f', '%U %S', 'tesseract', path, 'stdout', '-l', LANGS], {
    env: { ...process.env, OMP_THREAD_LIMIT: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });
  const [user = 0, system = 0] = stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { text: stdout, cpuMs: (user + system) * 1000 };
}

interface KindRun {
  kind: Kind;
  pages: BenchPage[];
  gateway: Side;
  raw: Side;
  models: Side;
  alone: Side;
  native: Side;
}

function printPages({ kind, pages, gateway, raw, alone, native }: KindRun): void {
  const error = kind === 'photos' ? 'ids missed' : 'CER';
  console.log(`\n${kind}: ms per page (median of the rounds; models: their time in the raw reading), ${error}`);
  console.log('page'.padEnd(30), 'gateway'.padStart(8), 'raw'.padStart(7), 'models'.padStart(7), 'native'.padStart(7), `gateway ${error}`.padStart(19), `native ${error}`.padStart(18));
  for (const { path } of pages) {
    const [g, r, m, n] = [gateway, raw, alone, native].map((side) => side.perPage.get(path)!);
    console.log(basename(path).padEnd(30), ...[g, r, m, n].map((s) => s!.ms.toFixed(0).padStart(7)), pct(g!.error).padStart(19), pct(n!.error).padStart(18));
  }
}

function printSummary(runs: readonly KindRun[], rate: 'pagesPerMinute' | 'pagesPerCpuMinute', title: string): void {
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  console.log(`\n${title.padEnd(10)}  gateway      raw   models    alone   native  gateway/models  gateway/native  raw/models  models/alone   error: gateway   raw  native`);
  for (const { kind, gateway, raw, models, alone, native } of runs) {
    console.log(
      kind.padEnd(10),
      ...[gateway, raw, models, alone, native].map((side) => side[rate].toFixed(1).padStart(8)),
      ratio(gateway[rate], models[rate]).padStart(15),
      ratio(gateway[rate], native[rate]).padStart(15),
      ratio(raw[rate], models[rate]).padStart(11),
      ratio(models[rate], alone[rate]).padStart(13),
      pct(gateway.meanError).padStart(16),
      pct(raw.meanError).padStart(5),
      pct(native.meanError).padStart(7),
    );
  }
}

async function pdfTimes(gateway: OcrEvalGateway, rounds: number): Promise<void> {
  const best = async (file: string) => {
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) times.push((await gateway.caseOcr([join(OCR_FIXTURES, file)])).ms);
    return Math.min(...times);
  };
  const textLayer = await best('report1-text.pdf');
  const scanned = await best('report1-scanned.pdf');
  console.log(`\nPDF page, best of ${rounds}: text layer ${textLayer.toFixed(0)} ms, scanned ${scanned.toFixed(0)} ms; scanned/text ${(scanned / textLayer).toFixed(1)}×`);
}

/** The gateway process's resident memory in MiB (its OCR worker threads share it). */
const rssMiB = async (gateway: OcrGatewayProcess) => Math.round(((await residentBytes(gateway.pid)) ?? Number.NaN) / 1024 / 1024);
const MEMORY_SAMPLE_EVERY = 50;

/** The gateway's resident memory over `count` pages, the given ones in turn, sampled every 50. */
async function memoryOver(gateway: OcrGatewayProcess, pages: readonly BenchPage[], count: number, workers: number): Promise<void> {
  const samples = [await rssMiB(gateway)];
  console.log(`\nresident memory of the gateway process (with its ${workers} OCR workers) over ${count} pages: ${samples[0]} MiB at the start`);
  let done = 0;
  await runAtMost(
    workers,
    Array.from({ length: count }, (_, i) => async () => {
      await gateway.caseOcr([pages[i % pages.length]!.path]);
      if (++done % MEMORY_SAMPLE_EVERY !== 0) return;
      samples.push(await rssMiB(gateway));
      console.log(`  after ${done} pages: ${samples.at(-1)} MiB`);
    }),
  );
  if (samples.length > 3) {
    const settled = samples.slice(2);
    console.log(`after the first ${2 * MEMORY_SAMPLE_EVERY} pages: ${Math.min(...settled)}–${Math.max(...settled)} MiB, last ${settled.at(-1)} MiB`);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      workers: { type: 'string', default: '2' },
      rounds: { type: 'string', default: '2' },
      pages: { type: 'string', default: '200' },
      kinds: { type: 'string', default: KINDS.join(',') },
    },
  });
  const workers = Number(values.workers);
  const rounds = Number(values.rounds);
  const kinds = values.kinds.split(',').map((kind) => {
    if (!(KINDS as readonly string[]).includes(kind)) throw new Error(`--kinds: ${kind} is not one of ${KINDS.join(', ')}`);
    return kind as Kind;
  });
  const { stdout: version } = await run('tesseract', ['--version']);
  buildGateway();
  const gateway = await startOcrGatewayProcess({ OCR_WORKERS: String(workers), OCR_LANGS: LANGS });
  const config = loadConfig().ocr;
  const settings = ppOcrSettings({ ...config, workers });
  const prepared = await readPreparedManifest(config.ppocrDir);
  const recogniser = recogniserFor(prepared, config.precision, 'cpu');
  const files = await verifiedModelFiles(config.ppocrDir, prepared, recogniser);
  const models = await loadModels(files, settings.threads, 'cpu');
  const replayers = await ModelReplayers.start({ files, threads: settings.threads }, workers).catch(async (error: unknown) => {
    await gateway.close();
    throw error;
  });
  try {
    console.log(`gateway: ${gateway.model}, ${workers} workers`);
    console.log(`raw:     the PP-OCR pipeline in-process, one page at a time × ${workers}, recogniser ${recogniser}, ${settings.batchSize} lines per call`);
    console.log(`models:  the raw reading's model calls replayed by ${workers} threads at once, nothing else running`);
    console.log(`alone:   the models' time within the raw reading × ${workers}`);
    console.log(`native:  ${version.split('\n')[0]} (Debian tessdata), OMP_THREAD_LIMIT=1, ${workers} at once`);
    console.log(`${rounds} rounds of each kind's pages (each read as often as it takes to read ${LEAST_PAGES_A_ROUND}), after one untimed reading of each by the gateway, raw and models`);
    await gateway.caseOcr([pagesOf('small')[0]!.path]); // warm-up
    const runs: KindRun[] = [];
    for (const kind of kinds) {
      const pages = pagesOf(kind);
      const tallies = { gateway: emptyTally(), raw: emptyTally(), models: emptyTally(), alone: emptyTally(), native: emptyTally() };
      const viaGateway = async (path: string) => ({ text: (await gateway.caseOcr([path])).body.ocr_results[0]!.ocr_result });
      await measure(pages, workers, viaGateway);
      const recorded = await recordedCalls(models, pages, settings);
      const round = roundOf(pages);
      const calls = round.map((page) => recorded[pages.indexOf(page)]!);
      await replayers.replay(calls);
      for (let count = 0; count < rounds; count++) {
        addTo(tallies.gateway, await measure(round, workers, viaGateway, gateway.cpuMs));
        const inProcess = await rawAndModels(models, round, settings);
        addTo(tallies.raw, inProcess.raw);
        addTo(tallies.alone, inProcess.models);
        // Each page's error is the raw reading's: the replay reads no text.
        addTo(tallies.models, { ...(await replayers.replay(calls)), results: inProcess.raw.results });
        addTo(tallies.native, await measure(round, workers, nativeTesseract));
      }
      runs.push({
        kind,
        pages,
        gateway: sideOf(pages, tallies.gateway, 1, workers),
        raw: sideOf(pages, tallies.raw, workers, workers),
        models: sideOf(pages, tallies.models, 1, workers),
        alone: sideOf(pages, tallies.alone, workers, workers),
        native: sideOf(pages, tallies.native, 1, workers),
      });
      printPages(runs.at(-1)!);
    }
    printSummary(runs, 'pagesPerMinute', 'pages/min');
    printSummary(runs, 'pagesPerCpuMinute', 'pages/CPU-min');
    console.log('(error: mean CER; photos: the share of their identifiers not read)');
    await pdfTimes(gateway, rounds);
    await memoryOver(gateway, runs.flatMap((r) => r.pages), Number(values.pages), workers);
  } finally {
    await replayers.close();
    await gateway.close();
  }
}

await main();
