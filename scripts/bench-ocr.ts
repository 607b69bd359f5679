/**
 * The gateway's OCR against the native tesseract CLI (Debian tesseract-ocr, same languages) on
 * the same pages in one run: pages/minute and CER side by side, with the ratio. Both sides run
 * as many pages at once as the gateway has workers, the CLI with OMP_THREAD_LIMIT=1 (one core
 * per page, like a tesseract.js worker). Then a PDF with a text layer against the same page
 * scanned (image only), both through the gateway.
 *
 *   apt-get install -y tesseract-ocr tesseract-ocr-chi-sim
 *   npm run bench:ocr [-- --workers 2 --rounds 2]
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { promisify } from 'node:util';
import { runAtMost } from '../src/platform/concurrency.js';
import { groundTruth, OCR_FIXTURES } from '../test/support/ocr-fixtures.js';
import { characterErrorRate, pct, startOcrGateway } from '../test/support/eval-gateway.js';

const run = promisify(execFile);
const PAGES = ['report1.png', 'report2.png', 'report3.png', 'report1-noisy.jpg'];

interface Side {
  pagesPerMinute: number;
  meanCer: number;
  /** Per distinct page: its CER and its median latency over the rounds. */
  perPage: Map<string, { cer: number; ms: number }>;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(pages: string[], concurrency: number, read: (path: string) => Promise<string>): Promise<Side> {
  const truth = groundTruth();
  const started = performance.now();
  const results = await runAtMost(
    concurrency,
    pages.map((page) => async () => {
      const pageStarted = performance.now();
      const text = await read(join(OCR_FIXTURES, page));
      return { page, ms: performance.now() - pageStarted, cer: characterErrorRate(text, truth[page]!.text) };
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const perPage = new Map(
    PAGES.map((page) => {
      const mine = results.filter((r) => r.page === page);
      return [page, { cer: mine[0]!.cer, ms: median(mine.map((r) => r.ms)) }];
    }),
  );
  return {
    pagesPerMinute: (pages.length / seconds) * 60,
    meanCer: results.reduce((sum, r) => sum + r.cer, 0) / results.length,
    perPage,
  };
}

async function nativeTesseract(path: string, langs: string): Promise<string> {
  const { stdout } = await run('tesseract', [path, 'stdout', '-l', langs], {
    env: { ...process.env, OMP_THREAD_LIMIT: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { workers: { type: 'string', default: '2' }, rounds: { type: 'string', default: '2' } } });
  const workers = Number(values.workers);
  const pages = Array.from({ length: Number(values.rounds) }, () => PAGES).flat();
  const langs = 'chi_sim+eng';
  const { stdout: version } = await run('tesseract', ['--version']);
  const gateway = await startOcrGateway({ OCR_WORKERS: String(workers), OCR_LANGS: langs });
  try {
    console.log(`gateway: tesseract.js, ${gateway.model}, ${workers} workers`);
    console.log(`native:  ${version.split('\n')[0]} (Debian tessdata), OMP_THREAD_LIMIT=1, ${workers} at once`);
    console.log(`${pages.length} pages (${PAGES.join(', ')} × ${values.rounds})\n`);
    await gateway.caseOcr([join(OCR_FIXTURES, PAGES[0]!)]); // warm-up
    const viaGateway = await measure(pages, workers, async (path) => (await gateway.caseOcr([path])).body.ocr_results[0]!.ocr_result);
    const native = await measure(pages, workers, (path) => nativeTesseract(path, langs));
    console.log('page'.padEnd(20), 'gateway ms'.padStart(11), 'native ms'.padStart(10), 'gateway CER'.padStart(12), 'native CER'.padStart(11));
    for (const page of PAGES) {
      const g = viaGateway.perPage.get(page)!;
      const n = native.perPage.get(page)!;
      console.log(page.padEnd(20), g.ms.toFixed(0).padStart(11), n.ms.toFixed(0).padStart(10), pct(g.cer).padStart(12), pct(n.cer).padStart(11));
    }
    console.log();
    console.log('side'.padEnd(10), 'pages/min'.padStart(10), 'mean CER'.padStart(10));
    for (const [name, side] of [['gateway', viaGateway], ['native', native]] as const) {
      console.log(name.padEnd(10), side.pagesPerMinute.toFixed(1).padStart(10), pct(side.meanCer).padStart(10));
    }
    console.log(`gateway/native throughput: ${(viaGateway.pagesPerMinute / native.pagesPerMinute).toFixed(2)}×`);

    const pdfMs = async (file: string) => {
      const times: number[] = [];
      for (let i = 0; i < Number(values.rounds); i++) times.push((await gateway.caseOcr([join(OCR_FIXTURES, file)])).ms);
      return Math.min(...times);
    };
    const textLayer = await pdfMs('report1-text.pdf');
    const scanned = await pdfMs('report1-scanned.pdf');
    console.log(`\nPDF page, best of ${values.rounds}: text layer ${textLayer.toFixed(0)} ms, scanned ${scanned.toFixed(0)} ms; scanned/text ${(scanned / textLayer).toFixed(1)}×`);
  } finally {
    await gateway.close();
  }
}

await main();
