/**
 * One page, fail-closed: black quads over every located datum, then a self-audit that OCRs the
 * encoded page exactly as it will be delivered and runs the same detectors on it. Data read
 * again outside the paint is painted too and audited again, for a bounded number of rounds; data
 * that still survives the last one fails the page (`deidentification_failed`), so an uncertain
 * file is withheld, never returned. A page is returned only when every reader read it, as
 * delivered, without finding data: each round the readers read in turn, the first (cheap) one
 * first, and the first that finds data ends the round, so the independent reader (several
 * times slower) reads only pages the first reader found clean, each as delivered.
 *
 * The audit reads the page as the first reading established it lies: turned by the same angle
 * (straightened, upright), and, where the first reading saw a photo taken at a slant flat, in
 * the same flat view, so a reader that cannot read askew text is not asked to. And it must
 * see: "nothing found" counts only from a reading that read, outside the paint, about as much of
 * the text as the first reading read there (see readShare); a reader that reads markedly less is
 * blind to this page, and the page is withheld as unreadable rather than passed as clean.
 *
 * A solid quad carries no information: every datum's glyphs (its box as read) must lie under
 * solid paint in the encoded page, the audit fills the paint with the paper around it for its own
 * reading, and counts only data read mostly outside it that the first reading did not already
 * read there as something else (see isEarlierTextReadAgain): paint changes what stands beside a
 * label, not what the page says. Besides what the detectors read in a line, the words in a
 * table's cell below an open label are data (see isReadData), and so is a word the paint covers
 * in part that the first reader cannot read again (see unreadNicked): it is painted whole.
 */
import sharp from 'sharp';
import type { PageRaster } from '../../documents/index.js';
import { boundingBox, insideQuad, pointInQuad, type Quad } from '../../engines/ocr/index.js';
import type { AuditReader, Box, OcrPage, PageLie } from '../../engines/types.js';
import { GatewayError } from '../../errors.js';
import { startsWithLabel, type PersonalKind } from '../personal-data/index.js';
import { outOfFrame, padded, quadToRaster, roomAlong, toRaster, type LineFrame, type RasterFrame, type Room } from './geometry.js';
import { isCode, labelsWithTheirValues, lineFrame, personalRegions, textBesideData, type PersonalRegion } from './locate.js';
import { paintPage, type OutputFormat } from './output.js';
import { fillWithSurroundings, meanIn } from './pixels.js';

/** The stages of de-identifying a page, each timed (gateway_deid_stage_seconds). */
export const DEIDENTIFICATION_STAGES = ['ocr', 'detect', 'redact', 'audit', 'encode'] as const;
export type DeidentificationStage = (typeof DEIDENTIFICATION_STAGES)[number];

/**
 * Reads an image as the page lies (turned `rotation` degrees, seen flat when photographed at a slant) with each reader the OCR engine has in turn (the
 * limiter and engine behind it): the data `dataIn` finds in the reading of the first reader that
 * finds some.
 */
export type DataByEachReader = <T>(image: Buffer, lie: PageLie, dataIn: (reading: OcrPage, reader: AuditReader) => T[]) => Promise<T[]>;

/** Runs a stage of the work, timing it (gateway_deid_stage_seconds). */
export type TimeStage = <T>(stage: DeidentificationStage, work: () => Promise<T>) => Promise<T>;

export interface PageWork {
  /** 1-based, for the message when the page is withheld. */
  pageNumber: number;
  raster: PageRaster;
  /** The page as first read: its text layer or OCR. */
  reading: OcrPage;
  /** Other readings of the page as sent (a closer look at a photo): the data they find is painted too. */
  alsoRead?: readonly OcrPage[];
  format: OutputFormat;
  dataByEachReader: DataByEachReader;
  timeStage: TimeStage;
  /** The least share of the first reading's text (outside the paint) an audit reading must read again. */
  minReadShare: number;
  /** Told each audit reading's share, for the metrics. */
  onReadShare?: (reader: AuditReader, share: number) => void;
}

export interface RedactedPage {
  encoded: Buffer;
  /** Quads painted, by kind of datum. */
  redactions: Partial<Record<PersonalKind, number>>;
  outcome: 'clean' | 'clean_after_retry';
}

/** A page withheld because it cannot be read well enough to vouch for it (by the first reading, or by the audit). */
export class UnreadablePage extends GatewayError {
  constructor(message: string) {
    super('deidentification_failed', message);
  }
}

/** Share of a datum's quad that must lie under paint for its reading to count as hallucination. */
const COVERED = 0.9;
/** Least share of a datum's quad on text the first reading read there (or on paint) for it to be that text read again. */
const MIN_SHARE_ON_EARLIER_TEXT = 0.5;
/** Least share of a datum's quad on a word the first reading read for that word to count as under it. */
const MIN_SHARE_ON_EARLIER_WORD = 0.1;
/** Audit rounds: on clean pages the first finds at most what the first reading missed, the second its rest. */
const AUDITS = 3;
/** Share of a word's quad under paint for it to count as painted over (not expected to be read again). */
const PAINTED_OVER = 0.5;
/** Characters the first reading must have read outside the paint before the audit's share of them means anything. */
const MIN_TEXT_TO_COMPARE = 20;

interface Located {
  /** Padded: what is painted. */
  box: Quad;
  /** As read: the glyphs, which must lie under solid paint. */
  core: Quad;
  kind: PersonalKind;
  /** Besides a region's evidence, `nicked`: a word the paint of a datum covers in part, which the audit could not read again. */
  evidence: PersonalRegion['evidence'] | 'nicked';
  text: string;
  /** A cell's label, which heads its column. */
  label?: Quad;
}

/** Text the first reading read beside the data, on the raster. */
interface EarlierText {
  /** Padded, as painted data would be. */
  box: Quad;
  /** As read. */
  core: Quad;
  text: string;
}

/** What the audit compares its readings with: the first reading's text beside the data, and its labels read with their value on their line (raster). */
interface FirstReading {
  earlierText: readonly EarlierText[];
  valuedLabels: readonly Quad[];
}

/**
 * Located data in raster pixels: all of it, or only what was read (`read`: no blank where a
 * label's value must be, which once painted and filled would flag the paint forever).
 */
function locate(reading: OcrPage, raster: RasterFrame, evidence: 'any' | 'read'): Located[] {
  return personalRegions(reading)
    .filter((region) => evidence === 'any' || region.evidence !== 'layout')
    .map((region) => ({
      ...onRaster(reading, raster, region.box, region.along, (box, room) => padded(box, room, region.estimated, isCode(region.kind)), region.room),
      kind: region.kind,
      evidence: region.evidence,
      text: region.text,
      ...(region.label ? { label: toRaster(region.label, reading, raster) } : {}),
    }));
}

/** A box of the reading padded by `pad` (what is painted) and as read, on the raster: in its line's frame, turned with it, where it has one. */
function onRaster(reading: OcrPage, raster: RasterFrame, box: Box, along: LineFrame | undefined, pad: (box: Box, room: Room | undefined) => Box, room?: Room): Pick<Located, 'box' | 'core'> {
  if (!along) return { box: toRaster(pad(box, room), reading, raster), core: toRaster(box, reading, raster) };
  return {
    box: quadToRaster(outOfFrame(along, pad(along.box, room && roomAlong(along, room))), reading, raster),
    core: quadToRaster(outOfFrame(along, along.box), reading, raster),
  };
}

export async function redactPage(work: PageWork): Promise<RedactedPage> {
  const { located, before } = await work.timeStage('detect', async () => ({
    located: withOtherReadings(locate(work.reading, work.raster, 'any'), work),
    before: firstReading(work.reading, work.raster),
  }));
  const painted = [...located];
  let survivors: Located[] = [];
  for (let audit = 1; audit <= AUDITS; audit++) {
    const encoded = await work.timeStage('redact', () => paintPage(work.raster, painted.map((item) => item.box), work.format));
    survivors = await work.timeStage('audit', () => surviving(encoded, painted, before, work));
    if (!survivors.length) return { encoded, redactions: countByKind(painted), outcome: audit === 1 ? 'clean' : 'clean_after_retry' };
    painted.push(...survivors);
  }
  if (survivors.every((item) => item.evidence === 'nicked')) {
    throw new UnreadablePage(`page ${work.pageNumber}: text the paint covers in part could not be read again, so what is left of it cannot be vouched for; the file is withheld`);
  }
  const kinds = [...new Set(survivors.map((item) => item.kind))].join(', ');
  throw new GatewayError(
    'deidentification_failed',
    `page ${work.pageNumber}: personal data (${kinds}) was still readable after ${AUDITS} rounds of redaction; the file is withheld`,
  );
}

function firstReading(reading: OcrPage, raster: RasterFrame): FirstReading {
  return {
    earlierText: textBesideData(reading).map((read) => ({ box: toRaster(padded(read.box), reading, raster), core: toRaster(read.box, reading, raster), text: read.text })),
    valuedLabels: labelsWithTheirValues(reading).map((box) => toRaster(padded(box), reading, raster)),
  };
}

/** The data the other readings find besides, each not under the paint of the readings before it already. */
function withOtherReadings(located: Located[], work: PageWork): Located[] {
  const all = [...located];
  for (const reading of work.alsoRead ?? []) {
    const paint = all.map((item) => item.box);
    all.push(...locate(reading, work.raster, 'any').filter((item) => coveredShare(item.core, paint) < COVERED));
  }
  return all;
}

/**
 * Data the audit still reads on the encoded page, outside the paint. Every painted quad, and
 * every datum's glyphs, are first checked to be solid black in the encoded page; the paint is
 * then filled with the paper around it for the audit's OCR only: a solid quad carries nothing,
 * tesseract reads black boxes as "国" and junk that would pass for values, and white ones on grey
 * paper blind it to the whole page.
 */
async function surviving(encoded: Buffer, painted: readonly Located[], before: FirstReading, work: PageWork): Promise<Located[]> {
  const { data, info } = await sharp(encoded).removeAlpha().toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
  const paint = painted.map((item) => item.box);
  // All checked before any is whitened: quads overlap.
  for (const item of painted) {
    if (!isSolid(data, info, item.box)) throw new GatewayError('internal', 'a redaction box is missing from the produced page; the file is withheld');
    if (!isSolid(data, info, item.core)) {
      throw new GatewayError('deidentification_failed', `page ${work.pageNumber}: a datum found on it is not under solid paint in the produced page; the file is withheld`);
    }
  }
  fillWithSurroundings(data, info, paint);
  const image = await sharp(data, { raw: info }).png({ compressionLevel: 1 }).toBuffer();
  const frame = { width: info.width, height: info.height, readWidth: info.width, readHeight: info.height };
  const expected = before.earlierText.filter((read) => coveredShare(read.core, paint) < PAINTED_OVER);
  const nicked = nickedWords(work.reading, work.raster, paint);
  const { rotation, perspective } = work.reading;
  return work.dataByEachReader(image, { rotation, ...(perspective ? { perspective } : {}) }, (reading, reader) => {
    const readAgain = charsReadAgain(reading, frame);
    const share = readShare(expected, readAgain);
    if (share !== undefined) {
      work.onReadShare?.(reader, share);
      if (share < work.minReadShare) throw blindAudit(work, share);
    }
    const data = locate(reading, frame, 'read').filter((item) => coveredShare(item.core, paint) < COVERED && isReadData(item, before, paint));
    return reader === 'first' ? [...data, ...unreadNicked(nicked, readAgain, painted)] : data;
  });
}

/** Share of a cell's label's quad on a label the first reading read with its value for it to be that label. */
const SAME_LABEL = 0.5;

/**
 * Whether what the audit read outside the paint is data. The words in the cell below an open
 * label are, as the first reading takes them (it may have read them as no datum at all: a table
 * photographed at a slant, its header row grouped with the row below), unless the first reading
 * read the label with its value on its line (once that value is painted and filled the label
 * reads open, and the line below it is another line of the form), or they begin with a label
 * (another field), or they are no more than a stroke. Data read by text is, unless it is text
 * the first reading read there (see isEarlierTextReadAgain).
 */
function isReadData(item: Located, before: FirstReading, paint: readonly Quad[]): boolean {
  if (item.evidence === 'text' && !couldIdentify(item)) return false;
  if (item.evidence !== 'cell') return !isEarlierTextReadAgain(item, before.earlierText, paint);
  return isLegibleCell(item.text) && !startsWithLabel(item.text) && coveredShare(item.label!, before.valuedLabels) < SAME_LABEL;
}

/**
 * Whether a value an audit reading read could name anyone: a name of two letters or Chinese
 * characters at least, any other datum of two letters or digits. tesseract.js reads the edge of
 * paint beside a label as a stroke or two ("也" after 姓名, "4" after 住院号), which a first
 * reading would paint as the label's value, and the next audit round read again beside that.
 */
function couldIdentify(item: Located): boolean {
  const chars = comparableChars(item.text);
  return (item.kind === 'name' ? chars.filter((char) => /\p{L}/u.test(char)) : chars).length >= 2;
}

/**
 * Whether a cell's words hold a Chinese character, or two letters or digits: a lone stroke is
 * what a reader makes of what is left of a ruling line ("|" read in a painted name's cell).
 */
function isLegibleCell(text: string): boolean {
  return HAN.test(text) || comparableChars(text).length >= 2;
}

function blindAudit(work: PageWork, share: number): UnreadablePage {
  const percent = (value: number) => `${Math.round(value * 100)}%`;
  return new UnreadablePage(
    `page ${work.pageNumber}: the audit could not read this page (it read ${percent(share)} of the text found there before, under the ${percent(work.minReadShare)} needed to vouch for it); the file is withheld`,
  );
}

/** Letters, digits and Chinese characters, as a reader's text is compared with another's. */
const comparableChars = (text: string): string[] => [...text.normalize('NFKC').toLowerCase()].filter((char) => /[\p{L}\p{N}]/u.test(char));

/**
 * How much of the text the first reading read outside the paint (`expected`) this reading read
 * again at the same place: its characters found among those of the words it read over each of
 * them, as a share of theirs; undefined when too little text lies outside the paint to tell.
 */
function readShare(expected: ReadonlyArray<Pick<EarlierText, 'core' | 'text'>>, readAgain: CharsReadAgain): number | undefined {
  let total = 0;
  let found = 0;
  for (const item of expected) {
    total += comparableChars(item.text).length;
    found += readAgain(item);
  }
  return total < MIN_TEXT_TO_COMPARE ? undefined : found / total;
}

/** How many of an earlier text's characters a reading read again over it. */
type CharsReadAgain = (item: Pick<EarlierText, 'core' | 'text'>) => number;

/** CharsReadAgain of `reading`, its words placed once for all the texts asked about. */
function charsReadAgain(reading: OcrPage, frame: RasterFrame): CharsReadAgain {
  const words = reading.words.map((word) => {
    const quad = toRaster(word.box, reading, frame);
    return { quad, bounds: boundingBox(quad), text: word.text };
  });
  return (item) => {
    const wanted = comparableChars(item.text);
    if (!wanted.length) return 0;
    const bounds = boundingBox(item.core);
    const over = words.filter(
      (word) => word.bounds.x0 < bounds.x1 && word.bounds.x1 > bounds.x0 && word.bounds.y0 < bounds.y1 && word.bounds.y1 > bounds.y0 && overlaps(item.core, word.quad),
    );
    return sharedCount(wanted, comparableChars(over.map((word) => word.text).join('')));
  };
}

/**
 * The first reading's words that the paint covers in part: paint meant for a datum beside or
 * above them (a padded outpatient number over half the name's row next to it, whose label the
 * reading had lost). What is left of them shows in the produced page; the audit must read them
 * again to vouch for them.
 */
function nickedWords(reading: OcrPage, raster: RasterFrame, paint: readonly Quad[]): EarlierText[] {
  return reading.words.flatMap((word) => {
    const { box, core } = onRaster(reading, raster, word.box, lineFrame(reading, word.charQuads), (own) => padded(own));
    const share = coveredShare(core, paint);
    return share > 0 && share < PAINTED_OVER && comparableChars(word.text).length ? [{ box, core, text: word.text }] : [];
  });
}

/**
 * The first reader reads the page again in the same view: a nicked word it does not read again at
 * all is one the paint has changed past reading, and what is left of it cannot be vouched for. It
 * is painted whole, as part of the datum whose paint nicked it (its kind), and audited again.
 */
function unreadNicked(nicked: readonly EarlierText[], readAgain: CharsReadAgain, painted: readonly Located[]): Located[] {
  return nicked.flatMap((word) => {
    if (readAgain(word) > 0) return [];
    const nicker = painted.find((item) => coveredShare(word.core, [item.box]) > 0)!;
    return [{ box: word.box, core: word.core, kind: nicker.kind, evidence: 'nicked' as const, text: word.text }];
  });
}

/** Whether a reading's word lies over the quad: a share of the quad's middle under it, or its centre inside. */
function overlaps(quad: Quad, word: Quad): boolean {
  return coveredShare(quad, [word]) > 0 || insideQuad(pointInQuad(word, 0.5, 0.5), quad);
}

/** Characters the two lists have in common, each counted as often as both have it. */
export function sharedCount(a: readonly string[], b: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const char of b) counts.set(char, (counts.get(char) ?? 0) + 1);
  let shared = 0;
  for (const char of a) {
    const left = counts.get(char) ?? 0;
    if (left > 0) {
      shared++;
      counts.set(char, left - 1);
    }
  }
  return shared;
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
 * A number read as an identifier is that text again when its digits are theirs, in order, and
 * they set them apart with more than spaces (see isSameNumberRunTogether).
 */
export function isEarlierTextReadAgain(item: Pick<Located, 'core' | 'text' | 'kind'>, earlierText: ReadonlyArray<Pick<EarlierText, 'box' | 'text'>>, paint: readonly Quad[]): boolean {
  const under = earlierText.filter((read) => coveredShare(item.core, [read.box]) >= MIN_SHARE_ON_EARLIER_WORD);
  const textUnder = under.map((read) => read.text).join('');
  const han = item.text.match(HAN_CHARACTERS) ?? [];
  const alike = han.length ? han.some((char) => textUnder.includes(char)) : HAN.test(textUnder) || (item.kind === 'identifier' && isSameNumberRunTogether(item.text, textUnder));
  return alike && coveredShare(item.core, [...under.map((read) => read.box), ...paint]) >= MIN_SHARE_ON_EARLIER_TEXT;
}

/**
 * Whether an identifier an audit reading read is clinical text the first reading read there with
 * its separators, run together: tesseract drops a date's dashes and colon ("2016-08-24 10:30" →
 * "201608241030") or glues a stage to its code ("T2aN2M0, ICD-10 C34.1" → "T2aN2MOICD10CG341",
 * one 0 taken for O). Its digits are among theirs, in order; a digit they did not have is read
 * data. Numbers set apart by spaces alone ("555 201 7788") were judged as a series of values, and
 * one run together is data.
 */
function isSameNumberRunTogether(datum: string, earlier: string): boolean {
  const digits = datum.match(/\d/gu) ?? [];
  let next = 0;
  let first = -1;
  let last = -1;
  for (let at = 0; at < earlier.length && next < digits.length; at++) {
    if (earlier[at] !== digits[next]) continue;
    if (first < 0) first = at;
    last = at;
    next++;
  }
  return digits.length > 0 && next === digits.length && /[^\d\s]/u.test(earlier.slice(first, last + 1));
}

/** Mean grey (0–255) under which painted pixels count as solid; JPEG rings only at the paint's edges. */
const SOLID_PAINT = 24;

/** Whether the quad is solid black in the encoded page, where it lies on the page. */
function isSolid(grey: Buffer, size: { width: number; height: number }, quad: Quad): boolean {
  const { mean, pixels } = meanIn(grey, size, quad);
  return pixels === 0 || mean <= SOLID_PAINT;
}

/**
 * Share of a quad under the union of others, sampled on a grid over the quad's middle half
 * across its line (quads overlap freely): OCR boxes of one line differ in their tops and bottoms
 * (accents, descenders, trimmed heights), not in their middles.
 */
export function coveredShare(quad: Quad, cover: readonly Quad[]): number {
  const steps = 8;
  const band = 0.5;
  let inside = 0;
  for (let i = 0; i < steps; i++) {
    for (let j = 0; j < steps; j++) {
      const point = pointInQuad(quad, (i + 0.5) / steps, (1 - band) / 2 + ((j + 0.5) / steps) * band);
      if (cover.some((c) => insideQuad(point, c))) inside++;
    }
  }
  return inside / (steps * steps);
}

function countByKind(located: readonly Located[]): Partial<Record<PersonalKind, number>> {
  const counts: Partial<Record<PersonalKind, number>> = {};
  for (const { kind } of located) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}
