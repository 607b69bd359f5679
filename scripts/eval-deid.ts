/**
 * De-identification quality through the real case-file-process route. Each file (the project's
 * fixtures in test/fixtures/deid, the full A4 pages in test/fixtures/ocr/a4, and the real
 * blood-test photos in test/fixtures/photos) is
 * de-identified, downloaded, and both input and output are read by two readers: the native
 * tesseract CLI (independent of the gateway) and the gateway's own first reader through case-ocr
 * (PP-OCR by default). A planted personal string that either reads in the input and either still
 * reads in the output is a leak; a clinical phrase that either reads in the input and neither
 * reads in the output is over-redaction (one reader's misreading beside a box is not a loss).
 * Leaked strings are printed masked (the photos show real people).
 *
 * Exit code 1 on any leak (text, image metadata, or a PDF text layer) or a failure other than
 * deidentification_failed (422, the self-audit refusing a file, which is counted, not fatal).
 *
 *   apt-get install -y tesseract-ocr tesseract-ocr-chi-sim tesseract-ocr-osd
 *   npm run eval:deid [-- --only lab] [-- --only ocr/a4/] [-- --workers 2]
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { runAtMost } from '../src/platform/concurrency.js';
import { deidCases, type DeidCase } from './lib/deid-fixtures.js';
import { comparable, deidentify, formatOf, isPdf, leftoverMetadata, mask, pageCount, readableIn, readIndependently, textLayerChars } from './lib/independent-reader.js';
import { pct, startOcrEvalGateway, type OcrEvalGateway } from './lib/eval-gateway.js';

interface FileReport {
  file: string;
  expected: DeidCase;
  /** Error kind when the gateway refused the file. */
  failed?: string;
  category?: string;
  pages?: number;
  personalInInput: string[];
  leaked: string[];
  clinicalInInput: string[];
  lost: string[];
  /** Image metadata left, or `text layer` for a PDF that still has one. */
  leftovers: string[];
  /** Input and output formats when they differ (images must keep theirs, PDFs stay PDFs). */
  formatChange?: string;
}

/** What the gateway's first reader (case-ocr) reads in a file, made comparable. */
async function readByGateway(gateway: OcrEvalGateway, bytes: Buffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'eval-deid-read-'));
  try {
    const path = join(dir, isPdf(bytes) ? 'file.pdf' : 'file.img');
    await writeFile(path, bytes);
    return comparable((await gateway.caseOcr([path])).body.ocr_results[0]!.ocr_result);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function evaluate(gateway: OcrEvalGateway, c: DeidCase): Promise<FileReport> {
  const input = await readFile(c.path);
  const inputReading = await readIndependently(input);
  const inputTexts = [comparable(inputReading.text), await readByGateway(gateway, input)];
  const inputText = inputTexts.join('\n');
  const report: FileReport = {
    file: basename(c.path),
    expected: c,
    personalInInput: c.personal.filter((s) => readableIn(inputText, s)),
    clinicalInInput: c.clinical.filter((s) => readableIn(inputText, s)),
    leaked: [],
    lost: [],
    leftovers: [],
  };
  const outcome = await deidentify(gateway, c.path);
  if (!outcome.ok) return { ...report, failed: `${outcome.status} ${outcome.kind}` };
  const outputText = [comparable((await readIndependently(outcome.output, inputReading.turns)).text), await readByGateway(gateway, outcome.output)].join('\n');
  const [from, to] = await Promise.all([formatOf(input), formatOf(outcome.output)]);
  return {
    ...report,
    formatChange: from === to ? undefined : `${from} → ${to}`,
    category: outcome.result.category,
    pages: outcome.result.pages ?? (await pageCount(outcome.output)),
    leaked: report.personalInInput.filter((s) => readableIn(outputText, s)),
    lost: report.clinicalInInput.filter((s) => !readableIn(outputText, s)),
    leftovers: await leftoversOf(outcome.output),
  };
}

/** What a de-identified file must not carry besides its pixels: image metadata, a PDF text layer. */
async function leftoversOf(output: Buffer): Promise<string[]> {
  if (!isPdf(output)) return leftoverMetadata(output);
  return (await textLayerChars(output)) > 0 ? ['text layer'] : [];
}

const ratio = (part: number, whole: number) => (whole ? pct(part / whole) : '-');

function printFile(r: FileReport): void {
  const category = `${r.expected.category} / ${r.failed ? '-' : (r.category ?? '?')}`;
  const personal = `${r.personalInInput.length}/${r.expected.personal.length}`;
  const clinical = `${r.clinicalInInput.length}/${r.expected.clinical.length}`;
  const pages = r.failed ? '' : `${r.pages}/${r.expected.pages}`;
  console.log(
    r.file.padEnd(30),
    category.padEnd(38),
    pages.padStart(5),
    personal.padStart(8),
    String(r.leaked.length).padStart(6),
    clinical.padStart(8),
    String(r.lost.length).padStart(5),
    (r.failed ? '' : ratio(r.lost.length, r.clinicalInInput.length)).padStart(7),
    (r.failed ?? (r.leftovers.join('+') || 'clean')).padStart(12),
  );
  if (r.leaked.length) console.log(`    LEAKED: ${r.leaked.map(mask).join(', ')}`);
  if (r.lost.length) console.log(`    LOST:   ${r.lost.join(', ')}`);
  if (r.formatChange) console.log(`    FORMAT: ${r.formatChange}`);
}

function printTotals(reports: FileReport[]): boolean {
  const done = reports.filter((r) => !r.failed);
  const sum = (pick: (r: FileReport) => number) => done.reduce((total, r) => total + pick(r), 0);
  const leaked = sum((r) => r.leaked.length);
  const readable = sum((r) => r.personalInInput.length);
  const lost = sum((r) => r.lost.length);
  const clinical = sum((r) => r.clinicalInInput.length);
  const rightCategory = done.filter((r) => r.category === r.expected.category).length;
  const refused = reports.filter((r) => r.failed?.includes('deidentification_failed'));
  const broken = reports.filter((r) => r.failed && !refused.includes(r));
  const withLeftovers = done.filter((r) => r.leftovers.length);
  console.log(`\nleak rate:           ${leaked}/${readable} planted strings readable in the input (${ratio(leaked, readable)})`);
  console.log(`over-redaction rate: ${lost}/${clinical} clinical phrases readable in the input (${ratio(lost, clinical)})`);
  console.log(`category accuracy:   ${rightCategory}/${done.length} (${ratio(rightCategory, done.length)})`);
  console.log(`metadata/text layer: ${withLeftovers.length ? withLeftovers.map((r) => `${r.file} (${r.leftovers.join('+')})`).join(', ') : 'none left'}`);
  const changed = done.filter((r) => r.formatChange);
  console.log(`format changed:      ${changed.length ? changed.map((r) => `${r.file} (${r.formatChange})`).join(', ') : 'none'}`);
  console.log(`refused (422):       ${refused.length}${refused.length ? ` — ${refused.map((r) => r.file).join(', ')}` : ''}`);
  if (broken.length) console.log(`other failures:      ${broken.map((r) => `${r.file} (${r.failed})`).join(', ')}`);
  return leaked === 0 && withLeftovers.length === 0 && broken.length === 0;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { workers: { type: 'string', default: '2' }, only: { type: 'string' } } });
  const selected = deidCases().filter((c) => existsSync(c.path) && (!values.only || c.path.includes(values.only)));
  const gateway = await startOcrEvalGateway({ OCR_WORKERS: values.workers });
  try {
    console.log(`case-file-process, OCR ${gateway.model}, ${values.workers} workers, ${selected.length} files; readers: native tesseract (default + --psm 11) and the gateway's case-ocr\n`);
    const reports = await runAtMost(
      Number(values.workers),
      selected.map((c) => () => evaluate(gateway, c)),
    );
    console.log(
      'file'.padEnd(30),
      'category expected / got'.padEnd(38),
      'pages'.padStart(5),
      'personal'.padStart(8),
      'leaked'.padStart(6),
      'clinical'.padStart(8),
      'lost'.padStart(5),
      'over'.padStart(7),
      'metadata'.padStart(12),
    );
    reports.forEach(printFile);
    process.exitCode = printTotals(reports) ? 0 : 1;
  } finally {
    await gateway.close();
  }
}

await main();
