/**
 * A text line cut out of the page along its quad, straightened to the size the recogniser or the
 * direction classifier reads (bilinear), straight into their input tensor. Most lines of a scan
 * lie level: each column of their crop comes from one column of the page and each row from one
 * row, so where each lands is worked out once per column and once per row, not per pixel, and
 * without the perspective's divisions. A line at a slant (a photo) is cut through its whole
 * homography. The pixels are sampled in WebAssembly (crop.wat), from a copy of only the
 * rectangle of the page the line draws on.
 */
import { CROP_WASM } from './crop-wasm.js';
import { homography, type Homography } from '../homography.js';
import { rectQuad } from './geometry.js';
import type { RgbImage } from './image.js';
import { instantiate, reserve, type WasmMemory } from './wasm.js';
import type { Quad } from '../plane.js';

/** Where in the output a crop goes: its first float, its row stride (floats) and the floats of one colour plane. */
export interface CropTarget {
  out: Float32Array;
  offset: number;
  stride: number;
  planeSize: number;
}

/**
 * The homography's terms that mix x into a crop row's source y (and y into a column's x), or
 * bend it (perspective), summed over the crop: below this they are the rounding of the solve that
 * made the homography, and leaving them out moves no sample by more than a hundred-thousandth of a pixel.
 */
const NOISE = 1e-9;

/**
 * The part of the page under `quad` as an upright `width` × `height` image, written to `target`
 * as normalised BGR planes: ((v / 255) − 0.5) / 0.5, the input of the recogniser and the
 * direction classifier.
 */
export function cutNormalised(image: RgbImage, quad: Quad, width: number, height: number, target: CropTarget): void {
  const h = homography(rectQuad(width, height), quad);
  if (liesLevel(h, width, height)) cutLevel(image, h, width, height, target);
  else cutSlanted(image, h, width, height, target);
}

/** Whether a `width` × `height` crop through `h` has no perspective to divide by (a line merely turned, a scan's). */
export const isAffine = (h: Homography, width: number, height: number) => Math.abs(h[6]) * width + Math.abs(h[7]) * height < NOISE;

/** Whether a `width` × `height` crop through `h` lies level in the page: its rows on page rows, its columns on page columns (see NOISE). */
export const liesLevel = (h: Homography, width: number, height: number) => (Math.abs(h[1]) + Math.abs(h[7])) * height + (Math.abs(h[3]) + Math.abs(h[6])) * width < NOISE;

/** crop.wat's exports: addresses and sizes in bytes, except widths and heights (pixels). */
interface CropModule extends WasmMemory {
  cutLevel(page: number, columns: number, rows: number, width: number, height: number, padded: number, upper: number, lower: number, out: number): void;
  cutRow(page: number, w: number, h: number, rowBytes: number, u: number, v: number, d: number, du: number, dv: number, dd: number, affine: number, inside: number, width: number, out: number, plane: number): void;
}

const module = instantiate<CropModule>(CROP_WASM);

/**
 * Where a crop's columns (or rows) sample the page, where crop.wat reads them in its memory: the
 * pixel before each (i32), the step to the next one (i32), and the share of the next (f64), each
 * array as long as the crop is wide (or high). Pixels and steps are counted in pixels, then, for
 * crop.wat, in bytes of the page's copy (see scale).
 */
interface Samples {
  first: Int32Array;
  next: Int32Array;
  share: Float64Array;
}

const samplesBytes = (count: number) => 16 * count;

/** The samples of `count` crop pixels at `at` in the module's memory. */
function samplesAt(buffer: ArrayBuffer, at: number, count: number): Samples {
  return { first: new Int32Array(buffer, at, count), next: new Int32Array(buffer, at + 4 * count, count), share: new Float64Array(buffer, at + 8 * count, count) };
}

/** The samples (in pixels) of crop pixels that fall at `positions` along one axis of the page, `size` pixels long there, written to `samples`. */
function sampleAlong(positions: Float64Array, size: number, samples: Samples): void {
  for (let i = 0; i < positions.length; i++) {
    const at = Math.min(size - 1, Math.max(0, positions[i]! - 0.5));
    const before = at | 0;
    samples.first[i] = before;
    samples.next[i] = before + 1 < size ? 1 : 0;
    samples.share[i] = at - before;
  }
}

/**
 * The floats between the rows of a crop `width` wide in the module's memory: an even number, as
 * crop.wat writes pairs of floats. Its BGR planes follow one another, rows × height floats each.
 */
const rowFloats = (width: number) => width + (width & 1);

const cropBytes = (width: number, height: number) => 12 * rowFloats(width) * height;

/** A rectangle of the page's pixels, its edges included. */
interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

const rectRowBytes = ({ left, right }: Rect) => 3 * (right - left + 1);

/**
 * Copies the page's pixels in `rect` to `at` in the module's memory (grown to hold them), its
 * rows rectRowBytes apart, and returns the address crop.wat is to take the page's pixel (0, 0)
 * at, so that it addresses the rectangle's pixels by their places in the page.
 */
function copyRect({ data, width: w }: RgbImage, rect: Rect, at: number): number {
  const rowBytes = rectRowBytes(rect);
  reserve(module, at + rowBytes * (rect.bottom - rect.top + 1));
  const memory = new Uint8Array(module.memory.buffer);
  for (let y = rect.top, to = at; y <= rect.bottom; y++, to += rowBytes) {
    const from = (y * w + rect.left) * 3;
    memory.set(data.subarray(from, from + rowBytes), to);
  }
  return (at - rect.top * rowBytes - rect.left * 3) | 0;
}

/** `samples`' pixels and steps as offsets in data `unit` bytes a pixel. */
function scale({ first, next }: Samples, unit: number): void {
  for (let i = 0; i < first.length; i++) {
    first[i] = first[i]! * unit;
    next[i] = next[i]! * unit;
  }
}

/** The pixels from the first to the last (inclusive) that `samples` (with steps of 1) draw on. */
function samplesSpan({ first, next }: Samples): [number, number] {
  let [low, high] = [Infinity, -Infinity];
  for (let i = 0; i < first.length; i++) {
    low = Math.min(low, first[i]!);
    high = Math.max(high, first[i]! + next[i]!);
  }
  return [low, high];
}

/** The crop at `at` in the module's memory (see rowFloats) copied out to `target`. */
function copyOut(at: number, width: number, height: number, { out, offset, stride, planeSize }: CropTarget): void {
  const rowLength = rowFloats(width);
  const crop = new Float32Array(module.memory.buffer, at, 3 * rowLength * height);
  for (let plane = 0; plane < 3; plane++) {
    for (let y = 0; y < height; y++) {
      const from = (plane * height + y) * rowLength;
      out.set(crop.subarray(from, from + width), offset + plane * planeSize + y * stride);
    }
  }
}

/**
 * A line that lies level in the page: its columns and rows sampled once each, and each page row
 * it draws on blended across once (a crop is taller than its line on the page, so its rows share
 * page rows), then every crop row blended down from the two page rows about it.
 */
function cutLevel(image: RgbImage, h: Homography, width: number, height: number, target: CropTarget): void {
  const columnsAt = 0;
  const rowsAt = columnsAt + samplesBytes(width);
  const upperAt = rowsAt + samplesBytes(height);
  const lowerAt = upperAt + 24 * rowFloats(width);
  const outAt = lowerAt + 24 * rowFloats(width);
  const pageAt = outAt + cropBytes(width, height);
  reserve(module, pageAt);
  // At pixel centres, x' = h0·x + h2 (stepped along a row, as cutSlanted steps it) and y' = h4·y + h5.
  const places = new Float64Array(Math.max(width, height));
  for (let x = 0, u = h[0] * 0.5 + h[2]; x < width; x++, u += h[0]) places[x] = u;
  const columns = samplesAt(module.memory.buffer, columnsAt, width);
  sampleAlong(places.subarray(0, width), image.width, columns);
  for (let y = 0; y < height; y++) places[y] = h[4] * (y + 0.5) + h[5];
  const rows = samplesAt(module.memory.buffer, rowsAt, height);
  sampleAlong(places.subarray(0, height), image.height, rows);
  const [[left, right], [top, bottom]] = [samplesSpan(columns), samplesSpan(rows)];
  const rect = { left, top, right, bottom };
  // crop.wat takes the samples as offsets in the copy's data.
  scale(columns, 3);
  scale(rows, rectRowBytes(rect));
  const page = copyRect(image, rect, pageAt);
  module.cutLevel(page, columnsAt, rowsAt, width, height, rowFloats(width), upperAt, lowerAt, outAt);
  copyOut(outAt, width, height, target);
}

/** A crop row's homography terms at its first pixel (see cutSlanted). */
interface RowTerms {
  u: number;
  v: number;
  d: number;
}

/** Crop row `y`'s homography terms at its first pixel: along the row they grow linearly, so cutSlanted steps them and divides once per pixel. */
function rowTerms(h: Homography, y: number): RowTerms {
  const cy = y + 0.5;
  return { u: h[0] * 0.5 + h[1] * cy + h[2], v: h[3] * 0.5 + h[4] * cy + h[5], d: h[6] * 0.5 + h[7] * cy + h[8] };
}

/**
 * The rectangle of the page the samples of a crop `width` × `height` at a slant draw on (a pixel
 * more each way than their places, against the rounding their steps gather): along a crop row
 * that stays on one side of the horizon (d > 0, or affine) its place in the page moves one way
 * only, so its ends bound it; a crop crossing the horizon may draw on any pixel.
 */
function rectDrawnOn(h: Homography, width: number, height: number, page: RgbImage, affine: boolean): Rect {
  const rect = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
  const pixelAt = (place: number, size: number) => Math.min(size - 1, Math.max(0, place - 0.5)) | 0;
  for (let y = 0; y < height; y++) {
    const { u, v, d } = rowTerms(h, y);
    const [uEnd, vEnd, dEnd] = [u + h[0] * (width - 1), v + h[3] * (width - 1), d + h[6] * (width - 1)];
    if (!affine && !(d > 0 && dEnd > 0)) return { left: 0, top: 0, right: page.width - 1, bottom: page.height - 1 };
    for (const [x, y] of affine ? [[u, v], [uEnd, vEnd]] : [[u / d, v / d], [uEnd / dEnd, vEnd / dEnd]]) {
      const [column, row] = [pixelAt(x!, page.width), pixelAt(y!, page.height)];
      rect.left = Math.min(rect.left, column);
      rect.right = Math.max(rect.right, column);
      rect.top = Math.min(rect.top, row);
      rect.bottom = Math.max(rect.bottom, row);
    }
  }
  const widen = (low: number, high: number, size: number) => [Math.max(0, low - 1), Math.min(size - 1, high + 2)];
  const [[left, right], [top, bottom]] = [widen(rect.left, rect.right, page.width), widen(rect.top, rect.bottom, page.height)];
  return { left: left!, top: top!, right: right!, bottom: bottom! };
}

/** A line at any slant: each crop pixel's place in the page through the homography (divided only where it has a perspective). */
function cutSlanted(image: RgbImage, h: Homography, width: number, height: number, target: CropTarget): void {
  const { width: w, height: hh } = image;
  const affine = isAffine(h, width, height);
  const outAt = 0;
  const rect = rectDrawnOn(h, width, height, image, affine);
  const page = copyRect(image, rect, outAt + cropBytes(width, height));
  for (let y = 0; y < height; y++) {
    const { u, v, d } = rowTerms(h, y);
    const inside = rowInside(u, v, d, h[0], h[3], h[6], width, image, affine);
    module.cutRow(page, w, hh, rectRowBytes(rect), u, v, d, h[0], h[3], h[6], +affine, +inside, width, outAt + 4 * y * rowFloats(width), 4 * rowFloats(width) * height);
  }
  copyOut(outAt, width, height, target);
}

/** How far inside the page a row's ends must lie to count its samples inside: far beyond the rounding its steps gather. */
const INSIDE = 1e-6;

/**
 * Whether every sample of a crop row `width` long, whose homography terms start at `u`, `v`,
 * `d` and step by `du`, `dv`, `dd` (as cutSlanted steps them), lies inside the page with a
 * pixel after it, right and down, so that crop.wat need not clamp it to the page's edge. Along
 * a row its place in the page moves one way only (the terms grow linearly, and the row stays on
 * one side of the horizon, d > 0, or is affine), so its ends bound it.
 */
export function rowInside(u: number, v: number, d: number, du: number, dv: number, dd: number, width: number, page: RgbImage, affine: boolean): boolean {
  const steps = width - 1;
  const [uEnd, vEnd, dEnd] = [u + du * steps, v + dv * steps, d + dd * steps];
  if (affine) return between(u, uEnd, page.width) && between(v, vEnd, page.height);
  return d > 0 && dEnd > 0 && between(u / d, uEnd / dEnd, page.width) && between(v / d, vEnd / dEnd, page.height);
}

/** Whether the pixel centres from `first` to `last` (either way round) lie inside an axis `size` pixels long, with a pixel after each. */
const between = (first: number, last: number, size: number) => Math.min(first, last) - 0.5 >= INSIDE && Math.max(first, last) - 0.5 < size - 1 - INSIDE;
