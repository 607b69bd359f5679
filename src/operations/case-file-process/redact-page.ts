/**
 * One page, fail-closed: black boxes over every located datum, then a self-audit that OCRs the
 * encoded page exactly as it will be delivered and runs the same detectors on it. Data read
 * again outside the boxes is boxed too and audited again, for a bounded number of rounds; data
 * that still survives the last one fails the page (`deidentification_failed`), so an uncertain
 * file is withheld, never returned. A page is returned only when every reader read it, as
 * delivered, without finding data: each round the readers read in turn, the first (cheap) one
 * first, and the first that finds data ends the round, so the independent reader (several
 * times slower) reads only pages the first reader found clean, each as delivered.
 * A solid box carries no information: the audit checks each box is solid in the encoded page,
 * whitens it for its own reading, and counts only data read mostly outside the boxes that the
 * first reading did not already read there as something else (see isReadBefore): paint changes
 * what stands beside a label, not what the page says.
 */
import sharp from 'sharp';
import type { PageRaster } from '../../engines/documents/index.js';
import type { OcrPage } from '../../engines/types.js';
import { GatewayError } from '../../errors.js';
import type { PersonalKind } from './detectors/index.js';
import { padded, toRaster, type RasterFrame } from './geometry.js';
import { personalRegions, textBesideData, type Box, type ReadText } from './locate.js';
import { paintPage, pixelRect, type OutputFormat, type PixelRect } from './output.js';

export type DeidStage = 'ocr' | 'detect' | 'redact' | 'audit' | 'encode';

/**
 * Reads an image at a known turn with each reader the OCR engine has in turn (the limiter and
 * engine behind it): the data `dataIn` finds in the reading of the first reader that finds some.
 */
export type ReadAt = <T>(image: Buffer, rotation: OcrPage['rotation'], dataIn: (reading: OcrPage) => T[]) => Promise<T[]>;

/** Runs a stage of the work, timing it. */
export type Timed = <T>(stage: DeidStage, work: () => Promise<T>) => Promise<T>;

export interface PageWork {
  /** 1-based, for the message when the page is withheld. */
  pageNumber: number;
  raster: PageRaster;
  /** The page as first read: its text layer or OCR. */
  reading: OcrPage;
  format: OutputFormat;
  read: ReadAt;
  timed: Timed;
}

export interface RedactedPage {
  encoded: Buffer;
  /** Boxes painted, by kind of datum. */
  redactions: Partial<Record<PersonalKind, number>>;
  outcome: 'clean' | 'clean_after_retry';
}

/** Share of a datum's box that must lie under paint for its reading to count as hallucination. */
const COVERED = 0.9;
/** Share of a datum's box on text read there before (or on paint) for it to be that text read again. */
const ON_TEXT_READ_BEFORE = 0.5;
/** Share of a datum's box on a word read before for that word to be under it. */
const UNDER = 0.1;
/** Audit rounds: on clean pages the first finds at most what the first reading missed, the second its rest. */
const AUDITS = 3;

interface Located {
  /** Padded: what is painted. */
  box: Box;
  /** As read: what the audit tests for paint. */
  core: Box;
  kind: PersonalKind;
  text: string;
}

/** Located data in raster pixels. */
function locate(reading: OcrPage, raster: RasterFrame, evidence: 'any' | 'text'): Located[] {
  return personalRegions(reading)
    .filter((region) => evidence === 'any' || region.evidence === 'text')
    .map((region) => ({
      box: toRaster(padded(region.box, region.room), reading, raster),
      core: toRaster(region.box, reading, raster),
      kind: region.kind,
      text: region.text,
    }));
}

export async function redactPage(work: PageWork): Promise<RedactedPage> {
  const { located, readBefore } = await work.timed('detect', async () => ({
    located: locate(work.reading, work.raster, 'any'),
    readBefore: textBesideData(work.reading).map((read) => ({ ...read, box: toRaster(padded(read.box), work.reading, work.raster) })),
  }));
  const painted = [...located];
  let survivors: Located[] = [];
  for (let audit = 1; audit <= AUDITS; audit++) {
    const encoded = await work.timed('redact', () => paintPage(work.raster, painted.map((item) => item.box), work.format));
    survivors = await work.timed('audit', () => surviving(encoded, painted, readBefore, work));
    if (!survivors.length) return { encoded, redactions: countByKind(painted), outcome: audit === 1 ? 'clean' : 'clean_after_retry' };
    painted.push(...survivors);
  }
  const kinds = [...new Set(survivors.map((item) => item.kind))].join(', ');
  throw new GatewayError(
    'deidentification_failed',
    `page ${work.pageNumber}: personal data (${kinds}) was still readable after ${AUDITS} rounds of redaction; the file is withheld`,
  );
}

/**
 * Data the audit still reads on the encoded page, outside the paint. Every box is first checked
 * to be solid black in the encoded page, then whitened for the audit's OCR only: a solid box
 * carries nothing, and tesseract reads black boxes as "国" and junk that would pass for values.
 */
async function surviving(encoded: Buffer, painted: readonly Located[], readBefore: readonly ReadText[], work: PageWork): Promise<Located[]> {
  const { data, info } = await sharp(encoded).removeAlpha().toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
  const boxes = painted.map((item) => item.box);
  const rects = boxes.map((box) => pixelRect(box, info)).filter((rect) => rect.width > 0 && rect.height > 0);
  // All checked before any is whitened: boxes overlap.
  for (const rect of rects) checkSolid(data, info, rect);
  for (const rect of rects) {
    for (let y = rect.top; y < rect.top + rect.height; y++) data.fill(255, y * info.width + rect.left, y * info.width + rect.left + rect.width);
  }
  const image = await sharp(data, { raw: info }).png({ compressionLevel: 1 }).toBuffer();
  const frame = { width: info.width, height: info.height, readWidth: info.width, readHeight: info.height };
  return work.read(image, work.reading.rotation, (reading) =>
    locate(reading, frame, 'text').filter((item) => coveredShare(item.core, boxes) < COVERED && !isReadBefore(item, readBefore, boxes)),
  );
}

const HAN = /\p{Script=Han}/u;
const HAN_CHARACTERS = /\p{Script=Han}/gu;

/**
 * Text the first reading read at that place and left open, read again: paint changed what stands
 * beside a label ("家属：[paint] 病史" reads as "家属:病史", a name for the detectors) or nicked a
 * label so that OCR reads a variant of it ("生别" for 性别, "南核" for 审核医师, "Em" for 复核医师).
 * It lies mostly on the words read there before (or on paint) and has a Chinese character in
 * common with them, or none at all where they had some. A Chinese character they did not have is
 * read data ("周" beside 配偶, where OCR drew the label's box over the first character of the
 * name), and so is a reading where the first one read junk ("REN" where it read "=EN").
 */
export function isReadBefore(item: Pick<Located, 'core' | 'text'>, readBefore: readonly ReadText[], paint: readonly Box[]): boolean {
  const under = readBefore.filter((read) => coveredShare(item.core, [read.box]) >= UNDER);
  const textUnder = under.map((read) => read.text).join('');
  const han = item.text.match(HAN_CHARACTERS) ?? [];
  const alike = han.length ? han.some((char) => textUnder.includes(char)) : HAN.test(textUnder);
  return alike && coveredShare(item.core, [...under.map((read) => read.box), ...paint]) >= ON_TEXT_READ_BEFORE;
}

/** Mean grey (0–255) under which a painted box counts as solid; JPEG rings only at its edges. */
const SOLID_PAINT = 24;

/** A painted box must be solid black in the encoded page: if not, the paint failed. */
function checkSolid(grey: Buffer, size: { width: number; height: number }, rect: PixelRect): void {
  let sum = 0;
  for (let y = rect.top; y < rect.top + rect.height; y++) {
    for (let x = rect.left; x < rect.left + rect.width; x++) sum += grey[y * size.width + x]!;
  }
  if (sum / (rect.width * rect.height) > SOLID_PAINT) {
    throw new GatewayError('internal', 'a redaction box is missing from the produced page; the file is withheld');
  }
}

/**
 * Share of a box under the union of others, sampled on a grid over the box's middle half in
 * height (boxes overlap freely): OCR boxes of one line differ in their tops and bottoms (accents,
 * descenders, trimmed heights), not in their middles.
 */
export function coveredShare(box: Box, cover: readonly Box[]): number {
  const steps = 8;
  const band = 0.5;
  let inside = 0;
  for (let i = 0; i < steps; i++) {
    for (let j = 0; j < steps; j++) {
      const x = box.x0 + ((i + 0.5) / steps) * (box.x1 - box.x0);
      const y = box.y0 + ((1 - band) / 2 + ((j + 0.5) / steps) * band) * (box.y1 - box.y0);
      if (cover.some((c) => x >= c.x0 && x <= c.x1 && y >= c.y0 && y <= c.y1)) inside++;
    }
  }
  return inside / (steps * steps);
}

function countByKind(located: readonly Located[]): Partial<Record<PersonalKind, number>> {
  const counts: Partial<Record<PersonalKind, number>> = {};
  for (const { kind } of located) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}
