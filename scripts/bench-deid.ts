/**
 * De-identification throughput through the real case-file-process route, for images, scanned
 * PDFs and text PDFs: pages per minute, the time split per stage (from the deltas of
 * gateway_deid_stage_seconds on /metrics) and the audit outcomes; side by side with the raw
 * engine, the native tesseract CLI reading each of the same pages once. De-identification reads
 * each page at least twice (once to find, once to audit), so about 2× the raw time is expected.
 *
 *   apt-get install -y tesseract-ocr tesseract-ocr-chi-sim
 *   npm run bench:deid [-- --rounds 2 --workers 2]
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runAtMost } from '../src/platform/concurrency.js';
import { DEID_FIXTURES, deidGroundTruth } from './lib/deid-fixtures.js';
import { DEIDENTIFICATION_STAGES as DEID_STAGES, type DeidentificationStage as DeidStage } from '../src/operations/case-file-process/redact-page.js';
import { auditOutcomes, deidentify, pagesOf, stageSeconds, tesseractOnce } from './lib/independent-reader.js';
import { pct, startOcrEvalGateway, type OcrEvalGateway } from './lib/eval-gateway.js';

const GROUPS = {
  images: ['pathology-zh-table.png', 'imaging-zh-exif.jpg', 'lab-zh-table.webp', 'lab-en.tiff'],
  'scanned PDFs': ['admission-en-scanned.pdf', 'discharge-zh-scanned.pdf'],
  'text PDFs': ['admission-zh-text.pdf', 'discharge-en-text.pdf'],
};

interface GroupRun {
  /** Pages of the files that came back de-identified. */
  pages: number;
  seconds: number;
  failed: string[];
  stages: Record<DeidStage, number>;
}

const perMinute = (pages: number, seconds: number) => (seconds ? (pages / seconds) * 60 : 0);

async function throughGateway(gateway: OcrEvalGateway, files: string[], workers: number): Promise<GroupRun> {
  const truth = deidGroundTruth();
  const before = await stageSeconds(gateway.baseUrl);
  const started = performance.now();
  const outcomes = await runAtMost(
    workers,
    files.map((file) => () => deidentify(gateway, join(DEID_FIXTURES, file))),
  );
  const seconds = (performance.now() - started) / 1000;
  const after = await stageSeconds(gateway.baseUrl);
  const failed = outcomes.flatMap((outcome, i) => (outcome.ok ? [] : [`${files[i]} (${outcome.status} ${outcome.kind})`]));
  return {
    pages: files.reduce((sum, file, i) => sum + (outcomes[i]!.ok ? truth[file]!.pages : 0), 0),
    seconds,
    failed,
    stages: Object.fromEntries(DEID_STAGES.map((stage) => [stage, after[stage] - before[stage]])) as Record<DeidStage, number>,
  };
}

/** Seconds for the native CLI to read each page once, `workers` pages at once; the pages are rendered beforehand. */
async function rawEngine(files: string[], workers: number): Promise<{ pages: number; seconds: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-deid-'));
  try {
    const paths: string[] = [];
    for (const file of files) {
      for (const png of await pagesOf(await readFile(join(DEID_FIXTURES, file)))) {
        const path = join(dir, `page${paths.length}.png`);
        await writeFile(path, png);
        paths.push(path);
      }
    }
    const started = performance.now();
    await runAtMost(
      workers,
      paths.map((path) => () => tesseractOnce(path)),
    );
    return { pages: paths.length, seconds: (performance.now() - started) / 1000 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function printStages(name: string, run: GroupRun): void {
  const total = DEID_STAGES.reduce((sum, stage) => sum + run.stages[stage], 0);
  const split = DEID_STAGES.map((stage) => `${stage} ${run.stages[stage].toFixed(1)} s (${total ? pct(run.stages[stage] / total) : '-'})`);
  console.log(`${name.padEnd(14)} ${split.join(', ')}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { workers: { type: 'string', default: '2' }, rounds: { type: 'string', default: '2' } } });
  const workers = Number(values.workers);
  const rounds = Number(values.rounds);
  const gateway = await startOcrEvalGateway({ OCR_WORKERS: String(workers) });
  try {
    console.log(`case-file-process, OCR ${gateway.model}, ${workers} workers, ${rounds} rounds; raw: native tesseract CLI, OMP_THREAD_LIMIT=1, ${workers} at once\n`);
    await deidentify(gateway, join(DEID_FIXTURES, GROUPS.images[0]!)); // warm-up
    const auditBefore = await auditOutcomes(gateway.baseUrl);
    const runs: [string, GroupRun][] = [];
    console.log('files'.padEnd(14), 'pages'.padStart(6), 'gateway p/min'.padStart(14), 'raw p/min'.padStart(10), 'gateway/raw time'.padStart(17), 'failed'.padStart(7));
    for (const [name, files] of Object.entries(GROUPS)) {
      const repeated = Array.from({ length: rounds }, () => files).flat();
      const run = await throughGateway(gateway, repeated, workers);
      const raw = await rawEngine(repeated, workers);
      runs.push([name, run]);
      const gatewayRate = perMinute(run.pages, run.seconds);
      const rawRate = perMinute(raw.pages, raw.seconds);
      console.log(
        name.padEnd(14),
        String(run.pages).padStart(6),
        gatewayRate.toFixed(1).padStart(14),
        rawRate.toFixed(1).padStart(10),
        (gatewayRate ? `${(rawRate / gatewayRate).toFixed(2)}×` : '-').padStart(17),
        String(run.failed.length).padStart(7),
      );
      for (const failure of run.failed) console.log(`    failed: ${failure}`);
    }
    console.log('\ntime per stage (sum over pages, from /metrics):');
    for (const [name, run] of runs) printStages(name, run);
    const auditAfter = await auditOutcomes(gateway.baseUrl);
    const audit = Object.keys(auditAfter).map((outcome) => `${outcome} ${auditAfter[outcome]! - (auditBefore[outcome] ?? 0)}`);
    console.log(`\naudit outcomes: ${audit.join(', ') || 'none reported'}`);
  } finally {
    await gateway.close();
  }
}

await main();
