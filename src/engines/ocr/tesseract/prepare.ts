/**
 * tesseract's view of a page: grey, contrast stretched, small scans upscaled (it reads small
 * text better larger), huge ones capped, and for de-identification its ruling lines erased.
 * Its readings are scaled back to the page it was given, so every OCR engine answers in the
 * frame of the image it was sent.
 */
import sharp, { type Sharp } from 'sharp';
import { lightEvenly } from '../lighting.js';
import { composed, homography, project, warp, type Homography, type Pixels } from '../homography.js';
import { flatView } from '../perspective.js';
import { boundingBox, isQuarterTurn, quadOf, undoDeskew, type Point, type Quad, type Size } from '../plane.js';
import { PAGE_DECODING, type OcrPage, type PagePerspective } from '../../types.js';
import { uprightView } from './upright-view.js';

/**
 * Pages whose longest side is below this are upscaled to it (at most 3×). Measured on the
 * fixtures: CER 4.9% at 1000 px, 3.9% at 1500, 1.9% at 2000, with no slower reading; the
 * blood-test photo reads 5 of 12 key strings at 1920 px against 3 at its own 1280.
 */
const SMALL_SIDE = 2000;
const UPSCALE_TARGET = 2000;
const MAX_UPSCALE = 3;
/** Longer sides are scaled down to this: more pixels slow tesseract without reading better. */
const MAX_SIDE = 3500;

/**
 * Upright greyscale PNG of one page, sized for OCR, its ruling lines erased when asked. The page
 * is lit evenly (see lighting.ts), then its contrast stretched, on the smaller of the page and
 * its resized copy: both measure the whole image, and on an upscaled page those passes (and the
 * resize under them) cost several times what the resize alone does.
 */
export async function normalizePage(page: Sharp, longestSide: number, eraseLines = false): Promise<Buffer> {
  const scale = longestSide < SMALL_SIDE ? Math.min(MAX_UPSCALE, UPSCALE_TARGET / longestSide) : Math.min(1, MAX_SIDE / longestSide);
  const target = Math.round(longestSide * scale);
  const resize = (image: Sharp) => image.resize(target, target, { fit: 'inside', kernel: 'lanczos3' });
  const stretch = async (image: Sharp) => {
    const grey = await image.rotate().flatten({ background: 'white' }).greyscale().toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
    await lightEvenly(grey.data, grey.info.width, grey.info.height, 1);
    return sharp(grey.data, { raw: { width: grey.info.width, height: grey.info.height, channels: 1 } })
      .normalise()
      .toColourspace('b-w')
      .raw()
      .toBuffer({ resolveWithObject: true });
  };
  let { data, info } = await stretch(scale < 1 ? resize(page) : page);
  if (scale > 1) {
    ({ data, info } = await resize(sharp(data, { raw: { width: info.width, height: info.height, channels: 1 } }))
      .toColourspace('b-w')
      .raw()
      .toBuffer({ resolveWithObject: true }));
  }
  if (eraseLines) eraseRulingLines(data, info.width, info.height);
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .toColourspace('b-w')
    .png(HANDED_OVER_PNG)
    .toBuffer();
}

/**
 * How the PNGs handed to tesseract are written: compressed least, since they are decoded again at
 * once (level 6, sharp's default, cost twice the CPU of level 1 on a 2000 px page turned).
 */
export const HANDED_OVER_PNG = { compressionLevel: 1 } as const;

const DARK = 128;
/** A dark run this share of the longest side (at least MIN_RULE px) is a line, not a stroke. */
const RULE_SHARE = 1 / 20;
const MIN_RULE = 80;
/** Lines up to this share of the longest side thick (at least 4 px) are erased. */
const THICKNESS_SHARE = 1 / 400;

/**
 * Ruling lines painted white: tesseract takes a bordered table for a picture and reads none of
 * its cells (measured: a bordered header table read as "[ET", and every cell once erased). Only
 * de-identification asks for it: on the real blood-count photo it costs case-ocr 3 of the 6 key
 * strings it reads without. A line is a thin run of dark
 * pixels along a row or column longer than any stroke of a character (a 56 px character is
 * read at 2000 px; lines are at least 100 px); thin, so a shadow on a photo, dark on both
 * sides, is no line. Both directions are found on the original pixels, then erased.
 */
export function eraseRulingLines(grey: Uint8Array, width: number, height: number): void {
  const longest = Math.max(width, height);
  const minRun = Math.max(MIN_RULE, Math.round(longest * RULE_SHARE));
  const maxThickness = 2 * Math.max(4, Math.round(longest * THICKNESS_SHARE));
  const dark = new Uint8Array(width * height);
  for (let i = 0; i < dark.length; i++) dark[i] = grey[i]! < DARK ? 1 : 0;
  const erase = new Uint8Array(width * height);
  const rows: Lines = { count: height, length: width, start: (row) => row * width, stride: 1 };
  const columns: Lines = { count: width, length: height, start: (column) => column, stride: width };
  // A line pixel of a row is thin down its column, and one of a column thin along its row.
  eraseRuns(rows, dark, thinStretches(columns, dark, maxThickness), erase, minRun, maxThickness);
  eraseRuns(columns, dark, thinStretches(rows, dark, maxThickness), erase, minRun, maxThickness);
  for (let i = 0; i < erase.length; i++) if (erase[i]) grey[i] = 255;
  eraseHalo(grey, width, erase);
}

/** How far beside an erased line its grey edge reaches, and how light a pixel of it may be. */
const HALO = 2;
const HALO_LIGHT = 224;

/**
 * The grey edge of each erased line painted white too. A line drawn or turned off the pixel grid
 * is anti-aliased: its edge rows are grey, dark enough in places to pass for ink, and left behind
 * they read as rows of dashes along every cell.
 */
function eraseHalo(grey: Uint8Array, width: number, erase: Uint8Array): void {
  const whiten = (j: number) => {
    if (!erase[j] && grey[j]! < HALO_LIGHT) grey[j] = 255;
  };
  for (let i = 0; i < erase.length; i++) {
    if (!erase[i]) continue;
    const x = i % width;
    for (let d = 1; d <= HALO; d++) {
      if (x >= d) whiten(i - d);
      if (x + d < width) whiten(i + d);
      if (i >= d * width) whiten(i - d * width);
      if (i + d * width < erase.length) whiten(i + d * width);
    }
  }
}

/** The rows or the columns of an image, as offsets into its pixels. */
interface Lines {
  count: number;
  length: number;
  start: (line: number) => number;
  stride: number;
}

/** Dark pixels whose stretch of dark pixels along `lines` is at most `maxThickness` long. */
function thinStretches(lines: Lines, dark: Uint8Array, maxThickness: number): Uint8Array {
  const thin = new Uint8Array(dark.length);
  for (let line = 0; line < lines.count; line++) {
    const base = lines.start(line);
    let step = 0;
    while (step < lines.length) {
      if (!dark[base + step * lines.stride]) {
        step++;
        continue;
      }
      const first = step;
      while (step < lines.length && dark[base + step * lines.stride]) step++;
      if (step - first <= maxThickness) for (let s = first; s < step; s++) thin[base + s * lines.stride] = 1;
    }
  }
  return thin;
}

/**
 * Marks the runs of line pixels along `lines` that span at least `minRun`. A run goes on through
 * dark pixels that are no line pixels for up to `maxThickness` (where another line crosses),
 * stops at the first light pixel (the gap between two characters whose strokes happen to
 * align), and covers every pixel from its first line pixel to its last.
 */
function eraseRuns(lines: Lines, dark: Uint8Array, thin: Uint8Array, erase: Uint8Array, minRun: number, maxThickness: number): void {
  for (let line = 0; line < lines.count; line++) {
    const base = lines.start(line);
    let first = -1;
    let last = -1;
    const close = () => {
      if (last - first + 1 >= minRun) for (let s = first; s <= last; s++) erase[base + s * lines.stride] = 1;
      first = -1;
    };
    for (let step = 0; step < lines.length; step++) {
      const pixel = base + step * lines.stride;
      if (thin[pixel]) {
        if (first < 0) first = step;
        last = step;
      } else if (first >= 0 && !(dark[pixel] && step - last <= maxThickness)) {
        close();
      }
    }
    if (first >= 0) close();
  }
}

/**
 * The page as tesseract should see it, and its scale against the page it came from. Its ruling
 * lines, when asked, are erased here as the page lies, where a table photographed tilted sideways
 * keeps its columns plumb, and again once the page is turned off a quarter turn (see turnedView).
 */
export async function prepareForTesseract(image: Buffer, eraseLines: boolean): Promise<{ image: Buffer; scale: number }> {
  const { width = 0, height = 0 } = await sharp(image).metadata();
  const longest = Math.max(width, height);
  const prepared = await normalizePage(sharp(image, PAGE_DECODING), longest, eraseLines);
  const { width: preparedWidth = 0, height: preparedHeight = 0 } = await sharp(prepared).metadata();
  return { image: prepared, scale: Math.max(preparedWidth, preparedHeight) / Math.max(1, longest) };
}

/** A reading of a page scaled by `factor` (boxes and size), back into the frame of the page sent. */
export function scaledPage(page: OcrPage, factor: number): OcrPage {
  if (factor === 1) return page;
  const scale = (v: number) => Math.round(v * factor);
  return {
    ...page,
    width: scale(page.width),
    height: scale(page.height),
    words: page.words.map((word) => ({ ...word, box: { x0: scale(word.box.x0), y0: scale(word.box.y0), x1: scale(word.box.x1), y1: scale(word.box.y1) } })),
  };
}

/** What tesseract reads, and for a flat view, the map from it back to the turned page and that page's size. */
export interface TesseractView {
  image: Buffer;
  flat?: { toTurned: Homography; turned: Size };
}

/**
 * A prepared page turned clockwise by `rotation` degrees, as tesseract reads it. Turned off a
 * quarter turn, its ruling lines are erased once more after the turn, when those of its rows
 * stand level: a table turned 15° kept every rule in its view, and the audit read half its cells.
 * A page photographed at a slant (`perspective`, in the turned page's pixels, as its first
 * reading found it) is read in its flat view, as PP-OCR reads it (see ocr/perspective.ts): its
 * rows converge as it lies, tesseract lost the far ones, and no rule there stood level or plumb.
 */
export async function turnedView(prepared: Buffer, rotation: number, eraseLines: boolean, perspective?: PagePerspective): Promise<TesseractView> {
  if (!rotation && !perspective) return { image: prepared };
  const turned = sharp(prepared).rotate(rotation, { background: '#ffffff' });
  if (!perspective && (!eraseLines || isQuarterTurn(rotation))) return { image: await turned.png(HANDED_OVER_PNG).toBuffer() };
  const { data, info } = await turned.toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
  const seen = perspective ? flattened({ data, width: info.width, height: info.height }, perspective, await longestSide(prepared)) : undefined;
  const view = seen?.pixels ?? { data, width: info.width, height: info.height };
  if (eraseLines) eraseRulingLines(view.data, view.width, view.height);
  const image = await sharp(view.data, { raw: { width: view.width, height: view.height, channels: 1 } })
    .png(HANDED_OVER_PNG)
    .toBuffer();
  return { image, ...(seen ? { flat: { toTurned: seen.toTurned, turned: { width: info.width, height: info.height } } } : {}) };
}

async function longestSide(image: Buffer): Promise<number> {
  const { width = 0, height = 0 } = await sharp(image).metadata();
  return Math.max(width, height);
}

/** A flat view keeps its nearest text at the prepared page's scale; the far text grows to match (within MAX_SIDE). */
const FLAT_VIEW_SCALE = 1;

/**
 * The flat view of a grey page (see flatView), its nearest text at its own scale, and the map from
 * the view back to the page; undefined where the vanishing line comes near the page.
 */
function flattened(page: Pixels, perspective: PagePerspective, focal: number): { pixels: Pixels; toTurned: Homography } | undefined {
  const around = quadOf({ x0: 0, y0: 0, x1: page.width, y1: page.height });
  const view = flatView(perspective, page, around, focal, { scale: FLAT_VIEW_SCALE, maxSide: MAX_SIDE });
  if (!view) return undefined;
  const toTurned = homography(around.map((corner) => project(view.toFlat, corner)) as Quad, around);
  const pixels = warp(page, 1, toTurned, view.size.width, view.size.height);
  const upright = uprightView(pixels);
  if (!upright) return { pixels, toTurned };
  // Drawn again from the page, not from the view: each resampling blurs small print.
  const uprightToTurned = composed(toTurned, upright.toLeaning);
  return { pixels: warp(page, 1, uprightToTurned, upright.width, upright.height), toTurned: uprightToTurned };
}

/**
 * A reading of a flat view carried back to the turned page it was drawn from, through tesseract's
 * own deskew of the view (what skew its rows keep once drawn upright): each word's box is the box
 * round its corners there (a row converging toward the far side slants a little).
 */
export function unflattenedPage(page: OcrPage, flat: NonNullable<TesseractView['flat']>): OcrPage {
  const toTurned = (corner: Point) => project(flat.toTurned, undoDeskew(corner, page.deskewRadians, page));
  return {
    ...page,
    width: flat.turned.width,
    height: flat.turned.height,
    deskewRadians: 0,
    words: page.words.map((word) => ({ ...word, box: boundingBox(quadOf(word.box).map(toTurned)) })),
  };
}
