/**
 * Pages as raw RGB pixels: decoded, as the detector sees them, and seen through a homography (a
 * perspective warp, bilinear). Text lines are cut from them in crop.ts.
 */
import sharp from 'sharp';
import { greyBrightness, srgbGrey } from '../lighting.js';
import type { Box } from '../../types.js';
import type { Homography } from './geometry.js';
import { Spares } from './spares.js';

export interface RgbImage {
  /** width × height × 3 bytes, row by row. */
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * Any image sharp reads (the pages come as PNG), as RGB, turned `turn` degrees clockwise (onto a
 * white canvas grown to hold it), with a white margin of `margin` px all round.
 */
export async function decodeRgb(bytes: Uint8Array, margin = 0, turn = 0): Promise<RgbImage> {
  const { data, info } = await sharp(bytes)
    .removeAlpha()
    .rotate(turn, { background: '#ffffff' })
    .extend({ top: margin, bottom: margin, left: margin, right: margin, background: '#ffffff' })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`expected 3 channels, got ${info.channels}`);
  return { data, width: info.width, height: info.height };
}

/**
 * The page at `width` × `height`, as the detector sees it: a 3×3 median (see despeckle), so
 * speckle (a noisy scan, a fax) no longer forms text regions, and its blurred brightness, which
 * each pixel is divided by (see lighting.ts), so text in the shadow of a photo stands out as much
 * as text in the light. Measured: the speckled fixture's CER 7.3% → 0.9% (median); a photo
 * darkened to a third on one side, 4 → 7 of 7 identifiers read (flat field). Lines are cut from
 * the unfiltered page. The despeckled page is lent (see Spares): give it back with giveBackView
 * once it is read.
 */
export async function detectorView(image: RgbImage, width: number, height: number): Promise<{ despeckled: RgbImage; brightness: Uint8Array }> {
  const resized = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .resize(width, height, { fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer();
  const { despeckled, grey } = despeckle(resized, width, height, { despeckled: spareBytes.lend(resized.length), grey: spareBytes.lend(width * height) });
  const brightness = await greyBrightness(grey, width, height);
  spareBytes.giveBack(grey);
  return { despeckled: { data: despeckled, width, height }, brightness };
}

/** The despeckled pages of detectorView and their greys, to be written over by the next (see Spares). */
const spareBytes = new Spares(Uint8Array);

/** Takes back a page detectorView despeckled once it will no longer be read. */
export function giveBackView(despeckled: RgbImage): void {
  spareBytes.giveBack(despeckled.data);
}

/** The median of three bytes: compares only, which the page's many runs of one value (white paper) predict well. */
const median3 = (a: number, b: number, c: number) => (a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b);

/**
 * A 3×3 median taken as the median of three across, then of three down (each channel): like
 * the full median it removes specks and lines one pixel thin and keeps strokes, at a fifth of
 * libvips' rank filter's time (a 2×2 speck survives it, as it would not the full median; the
 * speckled fixture reads as well). Taken at the detector's scale, so a large photo costs no
 * more than a page. Each row's first and last pixel repeat themselves past the edge, as do the
 * first and last rows. With each despeckled pixel's grey (see srgbGrey), taken in the same pass:
 * what the page's brightness is blurred from. White paper stays white: only the part of each
 * row that is not white, or whose rows above or below are not, is filtered (a printed page's
 * margins and the gaps between its lines are most of it), and white is passed over a word
 * (four bytes) at a time. Written `into` the arrays given, where they are.
 */
export function despeckle(data: Uint8Array, width: number, height: number, into?: { despeckled: Uint8Array; grey: Uint8Array }): { despeckled: Uint8Array; grey: Uint8Array } {
  const row = width * 3;
  const despeckled = (into?.despeckled ?? new Uint8Array(data.length)).fill(WHITE);
  const grey = (into?.grey ?? new Uint8Array(width * height)).fill(srgbGrey(WHITE, WHITE, WHITE));
  const dataWords = wordsOf(data);
  const spans = Array.from({ length: height }, (_, y) => filteredSpan(data, dataWords, y * row, row));
  // The medians across of the row above, this row and the row below, in turn (row y in slot y % 3),
  // each slot whole words long, so that a group of pixels can be seen to be white a word at a time.
  const slot = Math.ceil(row / GROUP) * GROUP;
  const across = new Uint8Array(3 * slot).fill(WHITE);
  const acrossWords = new Int32Array(across.buffer);
  const medianAcross = (y: number) => {
    const at = (y % 3) * slot;
    across.fill(WHITE, at, at + row);
    acrossRow(data, y * row, row, across, at, spans[y]!);
  };
  medianAcross(0);
  for (let y = 0; y < height; y++) {
    if (y + 1 < height) medianAcross(y + 1);
    const nearby = [spans[Math.max(0, y - 1)]!, spans[y]!, spans[Math.min(height - 1, y + 1)]!];
    const here = (y % 3) * slot;
    const above = y > 0 ? ((y + 2) % 3) * slot : here;
    const below = y + 1 < height ? ((y + 1) % 3) * slot : here;
    const start = y * row;
    const end = Math.max(...nearby.map((span) => span.to));
    // Outside the rows' spans the medians across are white: a group starting before them is white there too.
    for (let group = Math.floor(Math.min(...nearby.map((span) => span.from)) / GROUP) * GROUP; group < end; group += GROUP) {
      // Where two of the three rows are white the median down is white, as the page already is.
      if (whiteGroup(acrossWords, above + group) + whiteGroup(acrossWords, here + group) + whiteGroup(acrossWords, below + group) >= 2) continue;
      for (let i = group, pixel = y * width + group / 3; i < Math.min(end, group + GROUP); i += 3, pixel++) {
        const r = median3(across[above + i]!, across[here + i]!, across[below + i]!);
        const g = median3(across[above + i + 1]!, across[here + i + 1]!, across[below + i + 1]!);
        const b = median3(across[above + i + 2]!, across[here + i + 2]!, across[below + i + 2]!);
        despeckled[start + i] = r;
        despeckled[start + i + 1] = g;
        despeckled[start + i + 2] = b;
        grey[pixel] = srgbGrey(r, g, b);
      }
    }
  }
  return { despeckled, grey };
}

/** Bytes of a group of pixels the median down skips when white: four RGB pixels, three whole words. */
const GROUP = 12;

/** 1 when the group of pixels at byte `at` (a multiple of 4) of `words`' bytes is white, else 0. */
const whiteGroup = (words: Int32Array, at: number) => (words[at >> 2] === -1 && words[(at >> 2) + 1] === -1 && words[(at >> 2) + 2] === -1 ? 1 : 0);

const WHITE = 255;

/** Bytes `from` to `to` of a row (whole pixels; none when from ≥ to). */
interface Span {
  from: number;
  to: number;
}

/**
 * The pixels of the RGB row at `start` (`row` bytes) from its first to its last that is not
 * white: outside them its medians across are white (white is the largest byte, so the median of
 * three of which two are white is white).
 */
function filteredSpan(data: Uint8Array, words: Int32Array, start: number, row: number): Span {
  const first = firstNotWhite(data, words, start, start + row);
  if (first === start + row) return { from: row, to: 0 };
  const last = lastNotWhite(data, words, first, start + row);
  return { from: Math.floor((first - start) / 3) * 3, to: Math.floor((last - start) / 3) * 3 + 3 };
}

/** `data` seen four bytes a word, so that white paper is passed over a word at a time (copied when it does not start on a word). */
function wordsOf(data: Uint8Array): Int32Array {
  const aligned = data.byteOffset % 4 === 0 ? data : data.slice();
  return new Int32Array(aligned.buffer, aligned.byteOffset, aligned.length >> 2);
}

/** The first byte of `data` from `from` on, before `to`, that is not white (`to` when none is); `words`, its words. */
function firstNotWhite(data: Uint8Array, words: Int32Array, from: number, to: number): number {
  let i = from;
  while (i < to && i % 4 !== 0 && data[i] === WHITE) i++;
  if (i % 4 === 0) while (i + 4 <= to && words[i >> 2] === -1) i += 4;
  while (i < to && data[i] === WHITE) i++;
  return i;
}

/** The last byte of `data` before `to`, from `from` on, that is not white (`from` must not be); `words`, its words. */
function lastNotWhite(data: Uint8Array, words: Int32Array, from: number, to: number): number {
  let i = to - 1;
  while (i > from && (i + 1) % 4 !== 0 && data[i] === WHITE) i--;
  if ((i + 1) % 4 === 0) while (i - 4 >= from && words[(i - 3) >> 2] === -1) i -= 4;
  while (data[i] === WHITE) i--;
  return i;
}

/** The medians of three across of `span` of the RGB row at `from` (`row` bytes), written at `to` in `out`. */
function acrossRow(data: Uint8Array, from: number, row: number, out: Uint8Array, to: number, span: Span): void {
  const step = row > 3 ? 3 : 0;
  const end = from + row;
  const shift = to - from;
  const [first, last] = [from + span.from, from + span.to];
  for (let i = first; i < Math.min(last, from + 3); i++) out[i + shift] = median3(data[i]!, data[i]!, data[i + step]!);
  for (let i = Math.max(first, from + 3); i < Math.min(last, end - 3); i++) out[i + shift] = median3(data[i - 3]!, data[i]!, data[i + 3]!);
  for (let i = Math.max(first, from + 3, end - 3); i < last; i++) out[i + shift] = median3(data[i - step]!, data[i]!, data[i]!);
}

/**
 * The image seen through a homography: a `width` × `height` image whose pixel at p is the image's
 * at `fromOut`(p), bilinear, white outside it (the flat view of a page photographed at a slant).
 */
export function warpRgb(image: RgbImage, fromOut: Homography, width: number, height: number): RgbImage {
  const [h0, h1, h2, h3, h4, h5, h6, h7, h8] = fromOut;
  const { data, width: w, height: h } = image;
  const out = new Uint8Array(width * height * 3).fill(255);
  for (let y = 0; y < height; y++) {
    const cy = y + 0.5;
    let u = h0 * 0.5 + h1 * cy + h2;
    let v = h3 * 0.5 + h4 * cy + h5;
    let d = h6 * 0.5 + h7 * cy + h8;
    for (let x = 0; x < width; x++, u += h0, v += h3, d += h6) {
      const sx = u / d - 0.5;
      const sy = v / d - 0.5;
      if (!(sx >= 0 && sy >= 0 && sx <= w - 1 && sy <= h - 1)) continue;
      const x0 = sx | 0;
      const y0 = sy | 0;
      const fx = sx - x0;
      const fy = sy - y0;
      const a = (y0 * w + x0) * 3;
      const b = x0 + 1 < w ? a + 3 : a;
      const c = y0 + 1 < h ? a + 3 * w : a;
      const e = x0 + 1 < w ? c + 3 : c;
      const target = (y * width + x) * 3;
      for (let k = 0; k < 3; k++) {
        out[target + k] = Math.round(data[a + k]! * (1 - fx) * (1 - fy) + data[b + k]! * fx * (1 - fy) + data[c + k]! * (1 - fx) * fy + data[e + k]! * fx * fy);
      }
    }
  }
  return { data: out, width, height };
}

/** The part of the image inside `box` (whole pixels, within the image). */
export function cropRgb(image: RgbImage, box: Box): RgbImage {
  const width = box.x1 - box.x0;
  const height = box.y1 - box.y0;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const from = ((box.y0 + y) * image.width + box.x0) * 3;
    data.set(image.data.subarray(from, from + width * 3), y * width * 3);
  }
  return { data, width, height };
}
