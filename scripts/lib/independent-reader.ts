/**
 * Shared by eval:deid and bench:deid: case-file-process over HTTP, the de-identified file
 * downloaded, an independent reader (the native tesseract CLI, never the gateway's own OCR) for
 * any image or PDF, the comparison rules, and the gateway's de-identification metrics.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { CaseFileProcessResponse } from '../../src/contract/case-files.js';
import { loadPdf, render } from '../../src/documents/pdf.js';
import { DEIDENTIFICATION_STAGES as DEID_STAGES, type DeidentificationStage as DeidStage } from '../../src/operations/case-file-process/redact-page.js';
import type { OcrEvalGateway } from './eval-gateway.js';

const run = promisify(execFile);
const TESSERACT = '/usr/bin/tesseract';
const LANGS = 'chi_sim+eng';
const RENDER_DPI = 200;

export type DeidResult = CaseFileProcessResponse['results'][number];

export type DeidOutcome =
  | { ok: true; result: DeidResult; output: Buffer; ms: number }
  | { ok: false; status: number; kind: string; ms: number };

/** Runs one file through case-file-process and downloads its de-identified file. */
export async function deidentify(gateway: OcrEvalGateway, path: string): Promise<DeidOutcome> {
  const { status, body, ms } = await gateway.postFiles<CaseFileProcessResponse>('/ai/v1/case-file-process', [path]);
  if ('error' in body) return { ok: false, status, kind: body.error.kind, ms };
  const result = body.results[0]!;
  // The URL names PUBLIC_BASE_URL; the eval's gateway listens on a port chosen at start.
  const download = await fetch(new URL(new URL(result.desensitized_url).pathname, gateway.baseUrl));
  if (!download.ok) throw new Error(`GET ${result.desensitized_url} answered ${download.status}`);
  return { ok: true, result, output: Buffer.from(await download.arrayBuffer()), ms };
}

export const isPdf = (bytes: Buffer) => bytes.subarray(0, 5).toString('latin1') === '%PDF-';

/** `pdf`, or the image format sharp reads (jpeg, png, webp, tiff…). */
export const formatOf = async (bytes: Buffer): Promise<string> => (isPdf(bytes) ? 'pdf' : ((await sharp(bytes).metadata()).format ?? 'unknown'));

/** Each page of a PDF rendered at 200 DPI as PNG, the way the gateway renders pages. */
async function rasterise(bytes: Buffer): Promise<Buffer[]> {
  const document = await loadPdf(bytes);
  try {
    const pages: Buffer[] = [];
    for (let n = 1; n <= document.numPages; n++) {
      const page = await document.getPage(n);
      try {
        pages.push(await render(document, page, page.getViewport({ scale: RENDER_DPI / 72 })));
      } finally {
        page.cleanup();
      }
    }
    return pages;
  } finally {
    await document.destroy();
  }
}

/** Characters in the PDF's text layer, all pages (a de-identified PDF must have none). */
export async function textLayerChars(bytes: Buffer): Promise<number> {
  const document = await loadPdf(bytes);
  try {
    let count = 0;
    for (let n = 1; n <= document.numPages; n++) {
      const { items } = await (await document.getPage(n)).getTextContent();
      count += items.reduce((sum, item) => sum + ('str' in item ? item.str.trim().length : 0), 0);
    }
    return count;
  } finally {
    await document.destroy();
  }
}

export async function pageCount(bytes: Buffer): Promise<number> {
  if (!isPdf(bytes)) return (await sharp(bytes).metadata()).pages ?? 1;
  const document = await loadPdf(bytes);
  try {
    return document.numPages;
  } finally {
    await document.destroy();
  }
}

/** Every page of an image (EXIF orientation applied, each page of a TIFF) or a PDF, as PNG. */
export async function pagesOf(bytes: Buffer): Promise<Buffer[]> {
  if (isPdf(bytes)) return rasterise(bytes);
  const pages = await pageCount(bytes);
  return Promise.all(Array.from({ length: pages }, (_, page) => sharp(bytes, { page }).rotate().png().toBuffer()));
}

const tesseract = (path: string, ...args: string[]) =>
  run(TESSERACT, [path, 'stdout', ...args], { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, maxBuffer: 16 * 1024 * 1024 });

/** Why the native tesseract CLI cannot read here, or null. */
export function nativeTesseractMissing(): string | null {
  return existsSync(TESSERACT) && existsSync(`${DEBIAN_TESSDATA}/chi_sim.traineddata`)
    ? null
    : 'the native tesseract CLI with chi_sim is not installed (apt-get install tesseract-ocr tesseract-ocr-chi-sim)';
}

const DEBIAN_TESSDATA = '/usr/share/tesseract-ocr/5/tessdata';

/** What the native CLI reads in one page image as it lies, with the default layout and as sparse text (--psm 11). */
export async function readNatively(png: Buffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'native-read-'));
  try {
    const path = join(dir, 'page.png');
    await writeFile(path, png);
    const readings = await Promise.all([[], ['--psm', '11']].map((layout) => tesseract(path, '-l', LANGS, ...layout)));
    return readings.map((reading) => reading.stdout).join('\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** OSD confidence below which its orientation is not trusted (a sparse or noisy page). */
const MIN_OSD_CONFIDENCE = 1.5;

/** Clockwise degrees that turn the page upright per tesseract's OSD; null when it cannot tell. */
async function uprightTurn(path: string): Promise<number | null> {
  const { stdout } = await tesseract(path, '--psm', '0').catch(() => ({ stdout: '' }));
  const turn = /Rotate: (\d+)/.exec(stdout)?.[1];
  const confidence = Number(/Orientation confidence: ([\d.]+)/.exec(stdout)?.[1] ?? 0);
  return turn !== undefined && confidence >= MIN_OSD_CONFIDENCE ? Number(turn) : null;
}

/** Raw reading of one page image by the CLI (default layout), for the bench. */
export async function tesseractOnce(path: string): Promise<string> {
  return (await tesseract(path, '-l', LANGS)).stdout;
}

export interface IndependentReading {
  text: string;
  /** Per page, the turn OSD chose (null: it could not tell). */
  turns: (number | null)[];
}

const ALL_TURNS = [0, 90, 180, 270];

/**
 * What an independent reader finds in a file: each page turned upright by OSD, then read by the
 * native CLI with the default layout and as sparse text (--psm 11), all texts joined. A leak
 * must not hide behind a page the reader held sideways: a page OSD cannot orient (a redacted
 * page has little text left) is read in all four turns, and `turnHints` (the input's turns) are
 * read as well when they differ from OSD's.
 */
export async function readIndependently(bytes: Buffer, turnHints: (number | null)[] = []): Promise<IndependentReading> {
  const dir = await mkdtemp(join(tmpdir(), 'eval-deid-'));
  try {
    const texts: string[] = [];
    const turns: (number | null)[] = [];
    for (const [i, png] of (await pagesOf(bytes)).entries()) {
      const path = join(dir, `page${i}.png`);
      await writeFile(path, png);
      const turn = await uprightTurn(path);
      turns.push(turn);
      for (const t of turn === null ? ALL_TURNS : new Set([turn, turnHints[i] ?? turn])) {
        const turned = join(dir, `page${i}-${t}.png`);
        await writeFile(turned, await sharp(png).rotate(t).png().toBuffer());
        for (const layout of [[], ['--psm', '11']]) texts.push((await tesseract(turned, '-l', LANGS, ...layout)).stdout);
      }
    }
    return { text: texts.join('\n'), turns };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Width, case and whitespace ignored; digit runs also without `-`, so 139-5120-4471 matches 13951204471. */
export function comparable(text: string): string {
  const compact = text.normalize('NFKC').replace(/\s+/g, '').toLowerCase();
  return compact.replace(/(?<=\d)-(?=\d)/g, '');
}

/** Whether `phrase` can be read in `text` (the text already made comparable). */
export const readableIn = (comparableText: string, phrase: string) => comparableText.includes(comparable(phrase));

/** A personal string as it may be printed: first character and ***. */
export const mask = (text: string) => `${[...text][0] ?? ''}***`;

/** Metadata left in an image that must be stripped. */
export async function leftoverMetadata(bytes: Buffer): Promise<string[]> {
  const metadata = await sharp(bytes).metadata();
  const left: string[] = [];
  if (metadata.exif) left.push(metadata.exif.includes(Buffer.from([0x88, 0x25])) || metadata.exif.includes(Buffer.from([0x25, 0x88])) ? 'EXIF+GPS' : 'EXIF');
  if (metadata.xmp) left.push('XMP');
  if (metadata.icc) left.push('ICC');
  if (metadata.iptc) left.push('IPTC');
  if (metadata.comments?.length) left.push('comment');
  return left;
}

/** Seconds spent per de-identification stage so far, from the gateway's /metrics. */
export async function stageSeconds(baseUrl: string): Promise<Record<DeidStage, number>> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const seconds = Object.fromEntries(DEID_STAGES.map((stage) => [stage, 0])) as Record<DeidStage, number>;
  for (const match of text.matchAll(/^gateway_deid_stage_seconds_sum\{[^}]*stage="(\w+)"[^}]*\} ([\d.eE+-]+)$/gm)) {
    if (match[1]! in seconds) seconds[match[1] as DeidStage] += Number(match[2]);
  }
  return seconds;
}

/** Audit outcomes counted so far (clean, clean_after_retry, failed). */
export async function auditOutcomes(baseUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const outcomes: Record<string, number> = {};
  for (const match of text.matchAll(/^gateway_deid_audit_total\{[^}]*outcome="(\w+)"[^}]*\} ([\d.eE+-]+)$/gm)) {
    outcomes[match[1]!] = (outcomes[match[1]!] ?? 0) + Number(match[2]);
  }
  return outcomes;
}
