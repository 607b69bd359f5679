/**
 * De-identification at any angle, per angle: each de-identification fixture page (its first page)
 * and both real blood-count photos, turned every 15° on a desk and photographed tilted, through
 * case-file-process one at a time. For each: returned or withheld (and why), how many planted
 * strings' glyphs lie under paint in what came back (pixels, no reader), how many of its clinical
 * phrases that case-ocr reads on the page sent it no longer reads on the page returned
 * (over-redaction), and the share of the first reading's text each audit reader read again
 * (gateway_deid_audit_read_share).
 *
 *   npm run eval:deid-angles [-- --only photos] [-- --angles 0,45,90] [-- --tilts 30,45] [-- --averaging]
 *   (`--angles=` alone: no turns, only the tilts; `--tilts=`: no tilts; `--averaging`: tilted
 *   pages drawn with each pixel the mean of the page it sees, softer, as a camera's)
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import type { CaseFileProcessResponse } from '../src/contract/case-files.js';
import { deidGlyphs, deidGroundTruth, DEID_FIXTURES, type PageGlyphs } from './lib/deid-fixtures.js';
import { pct, startOcrEvalGateway, type OcrEvalGateway } from './lib/eval-gateway.js';
import { comparable, readableIn } from './lib/independent-reader.js';
import { fixturePath } from './lib/paths.js';
import { photoTruth } from './lib/photos.js';
import { coverage, placed, tiltedPage, turnedPage, uncovered, type DistortedPage } from './lib/redaction.js';

const TILT_SIDES = ['top', 'bottom', 'left', 'right'] as const;

interface Source {
  name: string;
  png: Buffer;
  page: PageGlyphs;
  drawn: { width: number; height: number };
  /** Phrases that must stay readable. */
  clinical: readonly string[];
}

async function source(name: string, bytes: Buffer, page: PageGlyphs, clinical: readonly string[]): Promise<Source> {
  const png = await sharp(bytes).rotate().png().toBuffer();
  const { width = 0, height = 0 } = await sharp(png).metadata();
  return { name, png, page, drawn: { width, height }, clinical };
}

async function sources(only: string | undefined): Promise<Source[]> {
  const glyphs = deidGlyphs();
  const truth = deidGroundTruth();
  const fixtures = Object.keys(glyphs).filter((file) => !file.endsWith('.pdf'));
  const photos = ['np2016_bloodtestreport2.jpg', 'np2016_bloodtestreport1.jpg'];
  const all = [
    ...(await Promise.all(fixtures.map(async (file) => source(file, await readFile(join(DEID_FIXTURES, file)), glyphs[file]![0]!, truth[file]!.clinical)))),
    ...(await Promise.all(
      photos.map(async (photo) => {
        const bytes = await readFile(fixturePath('photos', photo));
        const { width = 0, height = 0 } = await sharp(bytes).metadata();
        const { glyphs: planted, clinical } = photoTruth()[photo]!;
        return source(photo, bytes, { width, height, planted: planted! }, clinical ?? []);
      }),
    )),
  ];
  if (only === 'photos') return all.filter((item) => photos.includes(item.name));
  return only ? all.filter((item) => item.name.includes(only)) : all;
}

/** The audit readings' shares so far, by reader: sum and count of the histogram. */
async function readShares(gateway: OcrEvalGateway): Promise<Record<string, { sum: number; count: number }>> {
  const text = await (await fetch(`${gateway.baseUrl}/metrics`)).text();
  const shares: Record<string, { sum: number; count: number }> = {};
  for (const [, what, reader, value] of text.matchAll(/^gateway_deid_audit_read_share_(sum|count)\{reader="(\w+)"\} ([\d.eE+-]+)$/gm)) {
    shares[reader!] ??= { sum: 0, count: 0 };
    shares[reader!]![what as 'sum' | 'count'] = Number(value);
  }
  return shares;
}

interface Row {
  source: string;
  how: string;
  outcome: string;
  covered: string;
  /** How many clinical phrases case-ocr reads on the page sent. */
  readable: number;
  /** Those of them it no longer reads on the page returned. */
  lost: string[];
  first: string;
  independent: string;
  ms: number;
  open: string[];
}

/** The clinical phrases case-ocr reads in an image. */
async function clinicalRead(gateway: OcrEvalGateway, path: string, clinical: readonly string[]): Promise<string[]> {
  const text = comparable((await gateway.caseOcr([path])).body.ocr_results[0]!.ocr_result);
  return clinical.filter((phrase) => readableIn(text, phrase));
}

async function evaluate(gateway: OcrEvalGateway, dir: string, item: Source, how: string, page: DistortedPage): Promise<Row> {
  const path = join(dir, 'page.png');
  await writeFile(path, page.png);
  const readable = await clinicalRead(gateway, path, item.clinical);
  const before = await readShares(gateway);
  const { status, body, ms } = await gateway.postFiles<CaseFileProcessResponse>('/ai/v1/case-file-process', [path]);
  const after = await readShares(gateway);
  const share = (reader: string) => {
    const count = (after[reader]?.count ?? 0) - (before[reader]?.count ?? 0);
    return count ? (((after[reader]?.sum ?? 0) - (before[reader]?.sum ?? 0)) / count).toFixed(2) : '-';
  };
  const row = { source: item.name, how, first: share('first'), independent: share('independent'), ms: Math.round(ms) };
  if ('error' in body) return { ...row, outcome: `withheld (${status})`, covered: '-', readable: 0, lost: [], open: [body.error.message.replace(/^file \d+: /, '')] };
  const download = await fetch(new URL(new URL(body.results[0]!.desensitized_url).pathname, gateway.baseUrl));
  const produced = Buffer.from(await download.arrayBuffer());
  const returnedPath = join(dir, 'returned.png');
  await writeFile(returnedPath, produced);
  const stillRead = await clinicalRead(gateway, returnedPath, readable);
  const pages = await coverage(produced, [placed(item.page, page, item.drawn)]);
  const open = uncovered(pages);
  // Planted strings are printed masked: the photos show real people.
  return {
    ...row,
    outcome: 'returned',
    covered: `${pages[0]!.length - open.length}/${pages[0]!.length}`,
    readable: readable.length,
    lost: readable.filter((phrase) => !stillRead.includes(phrase)),
    open: open.map((line) => line.replace(/^page 1: (.)\S*/u, '$1***')),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: 'string' }, angles: { type: 'string' }, tilts: { type: 'string', default: '30,45' }, averaging: { type: 'boolean', default: false } } });
  const angles = values.angles !== undefined ? values.angles.split(',').filter(Boolean).map(Number) : Array.from({ length: 24 }, (_, i) => i * 15);
  const tilts = values.tilts ? values.tilts.split(',').filter(Boolean).map(Number) : [];
  const selected = await sources(values.only);
  const gateway = await startOcrEvalGateway({ OCR_WORKERS: '1' });
  const dir = await mkdtemp(join(tmpdir(), 'eval-deid-angles-'));
  const rows: Row[] = [];
  try {
    console.log(`case-file-process, OCR ${gateway.model}; ${selected.length} pages × ${angles.length} turns + ${tilts.length * TILT_SIDES.length} tilts, one at a time\n`);
    console.log('page'.padEnd(30), 'distortion'.padEnd(20), 'outcome'.padEnd(15), 'covered'.padStart(8), 'lost'.padStart(6), 'read 1st'.padStart(9), 'read 2nd'.padStart(9), 'ms'.padStart(7));
    for (const item of selected) {
      const cases: Array<[string, () => Promise<DistortedPage>]> = [
        ...angles.map((angle): [string, () => Promise<DistortedPage>] => [`turned ${angle}°`, () => turnedPage(item.png, angle)]),
        ...tilts.flatMap((tilt) => TILT_SIDES.map((side): [string, () => Promise<DistortedPage>] => [`tilted ${tilt}° ${side}`, () => tiltedPage(item.png, side, tilt, { averaging: values.averaging })])),
      ];
      for (const [how, make] of cases) {
        const row = await evaluate(gateway, dir, item, how, await make());
        rows.push(row);
        console.log(row.source.padEnd(30), row.how.padEnd(20), row.outcome.padEnd(15), row.covered.padStart(8), (row.outcome === 'returned' ? `${row.lost.length}/${row.readable}` : '-').padStart(6), row.first.padStart(9), row.independent.padStart(9), String(row.ms).padStart(7));
        for (const line of row.open) console.log(`    ${line}`);
        if (row.lost.length) console.log(`    lost: ${row.lost.join(', ')}`);
      }
    }
  } finally {
    await gateway.close();
    await rm(dir, { recursive: true, force: true });
  }
  const returned = rows.filter((row) => row.outcome === 'returned');
  const leaking = returned.filter((row) => row.open.length);
  const [readable, lost] = [returned.reduce((n, row) => n + row.readable, 0), returned.reduce((n, row) => n + row.lost.length, 0)];
  console.log(`\npages: ${rows.length}; returned ${returned.length}, every planted string covered on ${returned.length - leaking.length}; withheld ${rows.length - returned.length}`);
  console.log(`over-redaction on the pages returned: ${lost}/${readable} clinical phrases case-ocr read on the page sent (${readable ? pct(lost / readable) : '-'})`);
  process.exitCode = leaking.length ? 1 : 0;
}

await main();
