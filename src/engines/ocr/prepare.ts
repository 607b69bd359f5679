/**
 * tesseract's view of a page: grey, contrast stretched, small scans upscaled (it reads small
 * text better larger), huge ones capped, and for de-identification its ruling lines erased.
 * Its readings are scaled back to the page it was given, so every OCR engine answers in the
 * frame of the image it was sent.
 */
import sharp, { type Sharp } from 'sharp';
import type { OcrPage } from '../types.js';

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

/** Upright greyscale PNG of one page, sized for OCR, its ruling lines erased when asked. */
export async function normalizePage(page: Sharp, longestSide: number, eraseLines = false): Promise<Buffer> {
  const scale = longestSide < SMALL_SIDE ? Math.min(MAX_UPSCALE, UPSCALE_TARGET / longestSide) : Math.min(1, MAX_SIDE / longestSide);
  const target = Math.round(longestSide * scale);
  const resized = scale === 1 ? page : page.resize(target, target, { fit: 'inside', kernel: 'lanczos3' });
  const { data, info } = await resized
    .rotate()
    .flatten({ background: 'white' })
    .greyscale()
    .normalise()
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (eraseLines) eraseRulingLines(data, info.width, info.height);
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .toColourspace('b-w')
    .png({ compressionLevel: 1 })
    .toBuffer();
}

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
export function eraseRulingLines(grey: Buffer, width: number, height: number): void {
  const longest = Math.max(width, height);
  const minRun = Math.max(MIN_RULE, Math.round(longest * RULE_SHARE));
  const reach = Math.max(4, Math.round(longest * THICKNESS_SHARE));
  const dark = (x: number, y: number) => x >= 0 && y >= 0 && x < width && y < height && grey[y * width + x]! < DARK;
  const erase: number[] = [];
  /**
   * Along each line of pixels, `across` steps perpendicular to it: a line pixel is dark, in a
   * dark stretch across at most twice `reach` thick. A run goes on through (and erases) dark pixels that are no
   * line pixels for up to twice `reach` (where another line crosses), stops at the first light pixel (the
   * gap between two characters whose strokes happen to align), and is erased when it spans at
   * least `minRun`.
   */
  const scan = (lines: number, length: number, point: (line: number, step: number) => [number, number], across: [number, number]) => {
    const [dx, dy] = across;
    const onLine = (x: number, y: number) => {
      if (!dark(x, y)) return false;
      let thickness = 1;
      for (let k = 1; thickness <= 2 * reach && dark(x - dx * k, y - dy * k); k++) thickness++;
      for (let k = 1; thickness <= 2 * reach && dark(x + dx * k, y + dy * k); k++) thickness++;
      return thickness <= 2 * reach;
    };
    for (let line = 0; line < lines; line++) {
      let run: number[] = [];
      let bridge: number[] = [];
      let first = -1;
      let last = -1;
      const close = () => {
        if (last - first + 1 >= minRun) erase.push(...run);
        run = [];
        bridge = [];
        first = -1;
      };
      for (let step = 0; step < length; step++) {
        const [x, y] = point(line, step);
        if (onLine(x, y)) {
          if (first < 0) first = step;
          run.push(...bridge, y * width + x);
          bridge = [];
          last = step;
        } else if (first >= 0 && dark(x, y) && step - last <= 2 * reach) {
          bridge.push(y * width + x);
        } else if (first >= 0) {
          close();
        }
      }
      if (first >= 0) close();
    }
  };
  scan(height, width, (row, x) => [x, row], [0, 1]);
  scan(width, height, (column, y) => [column, y], [1, 0]);
  for (const index of erase) grey[index] = 255;
}

/** The page as tesseract should see it, and its scale against the page it came from. */
export async function prepareForTesseract(image: Buffer, eraseLines: boolean): Promise<{ image: Buffer; scale: number }> {
  const { width = 0, height = 0 } = await sharp(image).metadata();
  const longest = Math.max(width, height);
  const prepared = await normalizePage(sharp(image), longest, eraseLines);
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
