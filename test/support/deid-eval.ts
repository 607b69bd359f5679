/**
 * Shared by eval:deid and bench:deid: case-file-process on a local file and its de-identified
 * file downloaded, an independent reader (the native tesseract CLI, never the gateway's own OCR)
 * for any image or PDF, the comparison rules, and the gateway's de-identification metrics.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import sharp from 'sharp';
import type { CaseFileProcessResponse } from '../../src/contract/case-files.js';
import { openDocument } from '../../src/engines/documents/index.js';
import { sniffMedia } from '../../src/platform/fetch/index.js';
import { downloadProduced, type TestGateway } from './gateway.js';
import { TESSERACT_LANGS, tesseractCli, type OcrEvalGateway } from './ocr-eval.js';

export type DeidResult = CaseFileProcessResponse['results'][number];

export type DeidOutcome =
  | { ok: true; result: DeidResult; output: Buffer; ms: number }
  | { ok: false; status: number; kind: string; ms: number };

/** Runs one file through case-file-process and downloads its de-identified file. */
export async function deidentify(evalGateway: OcrEvalGateway, path: string): Promise<DeidOutcome> {
  const { status, body, ms } = await evalGateway.postFiles<CaseFileProcessResponse>('/ai/v1/case-file-process', [path]);
  if ('error' in body) return { ok: false, status, kind: body.error.kind, ms };
  const result = body.results[0]!;
  const download = await downloadProduced(evalGateway.gateway, result.desensitized_url);
  if (download.status !== 200) throw new Error(`GET ${result.desensitized_url} answered ${download.status}`);
  return { ok: true, result, output: download.bytes, ms };
}

export const isPdf = (bytes: Buffer) => bytes.subarray(0, 5).toString('latin1') === '%PDF-';

/** `pdf`, or the image format sharp reads (jpeg, png, webp, tiff…). */
export const formatOf = async (bytes: Buffer): Promise<string> => (isPdf(bytes) ? 'pdf' : ((await sharp(bytes).metadata()).format ?? 'unknown'));

/** Characters in the PDF's text layer, all pages (a de-identified PDF must have none). */
export async function textLayerChars(bytes: Buffer): Promise<number> {
  const document = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
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

/** Large enough for any page the evaluations read. */
const NO_LIMITS = { maxPages: 1000, maxPagePixels: 100_000_000 };

async function openAny(bytes: Buffer) {
  const media = sniffMedia(bytes);
  if (!media) throw new Error('not a document the gateway reads');
  return openDocument(bytes, media, NO_LIMITS);
}

export async function pageCount(bytes: Buffer): Promise<number> {
  const document = await openAny(bytes);
  await document.close();
  return document.pageCount;
}

/**
 * Every page as a viewer shows it, as PNG: an image upright per its EXIF orientation (each page
 * of a TIFF), a PDF page rendered as the gateway renders it.
 */
export async function pagesOf(bytes: Buffer): Promise<Buffer[]> {
  const document = await openAny(bytes);
  try {
    const pages: Buffer[] = [];
    for (let index = 0; index < document.pageCount; index++) {
      const { raster } = await document.page(index, { raster: true });
      if (!raster) throw new Error(`page ${index + 1} has no raster`);
      pages.push(await sharp(raster.rgb, { raw: { width: raster.width, height: raster.height, channels: 3 } }).png().toBuffer());
    }
    return pages;
  } finally {
    await document.close();
  }
}

/** OSD confidence below which its orientation is not trusted (a sparse or noisy page). */
const MIN_OSD_CONFIDENCE = 1.5;

/** Clockwise degrees that turn the page upright per tesseract's OSD; null when it cannot tell. */
async function uprightTurn(path: string): Promise<number | null> {
  const stdout = await tesseractCli(path, '--psm', '0').catch(() => '');
  const turn = /Rotate: (\d+)/.exec(stdout)?.[1];
  const confidence = Number(/Orientation confidence: ([\d.]+)/.exec(stdout)?.[1] ?? 0);
  return turn !== undefined && confidence >= MIN_OSD_CONFIDENCE ? Number(turn) : null;
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
        for (const layout of [[], ['--psm', '11']]) texts.push(await tesseractCli(turned, '-l', TESSERACT_LANGS, ...layout));
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

export const DEID_STAGES = ['ocr', 'detect', 'redact', 'audit', 'encode'] as const;
export type DeidStage = (typeof DEID_STAGES)[number];

const metricsOf = async (gateway: TestGateway) => (await gateway.app.inject({ method: 'GET', url: '/metrics' })).body;

/** Seconds spent per de-identification stage so far, from the gateway's /metrics. */
export async function stageSeconds(gateway: TestGateway): Promise<Record<DeidStage, number>> {
  const text = await metricsOf(gateway);
  const seconds = Object.fromEntries(DEID_STAGES.map((stage) => [stage, 0])) as Record<DeidStage, number>;
  for (const match of text.matchAll(/^gateway_deid_stage_seconds_sum\{[^}]*stage="(\w+)"[^}]*\} ([\d.eE+-]+)$/gm)) {
    if (match[1]! in seconds) seconds[match[1] as DeidStage] += Number(match[2]);
  }
  return seconds;
}

/** Audit outcomes counted so far (clean, clean_after_retry, failed). */
export async function auditOutcomes(gateway: TestGateway): Promise<Record<string, number>> {
  const text = await metricsOf(gateway);
  const outcomes: Record<string, number> = {};
  for (const match of text.matchAll(/^gateway_deid_audit_total\{[^}]*outcome="(\w+)"[^}]*\} ([\d.eE+-]+)$/gm)) {
    outcomes[match[1]!] = (outcomes[match[1]!] ?? 0) + Number(match[2]);
  }
  return outcomes;
}
