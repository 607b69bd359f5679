/**
 * A text line cut out of the page along its quad, straightened to the size the recogniser or the
 * direction classifier reads (bilinear), straight into their input tensor. Most lines of a scan
 * lie level: each column of their crop comes from one column of the page and each row from one
 * row, so where each lands is worked out once per column and once per row, not per pixel, and
 * without the perspective's divisions. A line at a slant (a photo) is cut through its whole
 * homography. The pixels are sampled in WebAssembly (crop.wat), from a copy of only the page rows
 * the line touches.
 */
import { CROP_WASM } from './crop-wasm.js';
import { homography, rectQuad, type Homography } from './geometry.js';
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
  const level = (Math.abs(h[1]) + Math.abs(h[7])) * height + (Math.abs(h[3]) + Math.abs(h[6])) * width < NOISE;
  if (level) cutLevel(image, h, width, height, target);
  else cutSlanted(image, h, width, height, target);
}

/** crop.wat's exports: addresses and sizes in bytes, except widths and heights (pixels). */
interface CropModule extends WasmMemory {
  cutLevel(page: number, columns: number, rows: number, width: number, height: number, upper: number, lower: number, out: number): void;
  cutRow(page: number, w: number, h: number, u: number, v: number, d: number, du: number, dv: number, dd: number, affine: number, inside: number, width: number, out: number, plane: number): void;
}

const module = instantiate<CropModule>(CROP_WASM);

/**
 * Where a crop's columns (or rows) sample the page, as crop.wat reads them from `at` in its
 * memory: the offsets in the page's data of the pixel before each (i32), the steps to the next
 * one (i32), and the shares of the next (f64), each array `count` long.
 */
interface Samples {
  first: Int32Array;
  next: Int32Array;
  share: Float64Array;
}

const samplesBytes = (count: number) => 16 * count;

function samplesAt(buffer: ArrayBuffer, at: number, count: number): Samples {
  return { first: new Int32Array(buffer, at, count), next: new Int32Array(buffer, at + 4 * count, count), share: new Float64Array(buffer, at + 8 * count, count) };
}

/**
 * The samples of crop pixels that fall at `positions` along one axis of the page, `size` pixels
 * long there, written to `samples`; `unit` is the distance between neighbouring pixels along
 * that axis in its data.
 */
function sampleAlong(positions: Float64Array, size: number, unit: number, samples: Samples): void {
  for (let i = 0; i < positions.length; i++) {
    const at = Math.min(size - 1, Math.max(0, positions[i]! - 0.5));
    const before = at | 0;
    samples.first[i] = before * unit;
    samples.next[i] = before + 1 < size ? unit : 0;
    samples.share[i] = at - before;
  }
}

/** Bytes of a crop written compact (rows `width` floats apart, BGR planes one after another). */
const cropBytes = (width: number, height: number) => 12 * width * height;

/**
 * Copies page rows `firstRow` to `lastRow` to `at` in the module's memory (grown to hold them
 * after `at`) and returns the address crop.wat is to take the page's data as starting from.
 */
function copyRows({ data, width: w }: RgbImage, firstRow: number, lastRow: number, at: number): number {
  const rowBytes = 3 * w;
  const rows = data.subarray(firstRow * rowBytes, (lastRow + 1) * rowBytes);
  reserve(module, at + rows.length);
  new Uint8Array(module.memory.buffer).set(rows, at);
  return (at - firstRow * rowBytes) | 0;
}

/** The compact crop at `at` in the module's memory copied out to `target`. */
function copyOut(at: number, width: number, height: number, { out, offset, stride, planeSize }: CropTarget): void {
  const crop = new Float32Array(module.memory.buffer, at, 3 * width * height);
  if (stride === width && planeSize === width * height) {
    out.set(crop, offset);
    return;
  }
  for (let plane = 0; plane < 3; plane++) {
    for (let y = 0; y < height; y++) {
      const from = (plane * height + y) * width;
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
  const { width: w } = image;
  const columnsAt = 0;
  const rowsAt = columnsAt + samplesBytes(width);
  const upperAt = rowsAt + samplesBytes(height);
  const lowerAt = upperAt + 24 * width;
  const outAt = lowerAt + 24 * width;
  const pageAt = outAt + cropBytes(width, height);
  reserve(module, pageAt);
  // At pixel centres, x' = h0·x + h2 (stepped along a row, as cutSlanted steps it) and y' = h4·y + h5.
  const xs = new Float64Array(width);
  for (let x = 0, u = h[0] * 0.5 + h[2]; x < width; x++, u += h[0]) xs[x] = u;
  sampleAlong(xs, w, 3, samplesAt(module.memory.buffer, columnsAt, width));
  const rows = samplesAt(module.memory.buffer, rowsAt, height);
  sampleAlong(Float64Array.from({ length: height }, (_, y) => h[4] * (y + 0.5) + h[5]), image.height, 3 * w, rows);
  let [top, bottom] = [Infinity, -Infinity];
  for (let y = 0; y < height; y++) [top, bottom] = [Math.min(top, rows.first[y]!), Math.max(bottom, rows.first[y]! + rows.next[y]!)];
  const page = copyRows(image, top / (3 * w), bottom / (3 * w), pageAt);
  module.cutLevel(page, columnsAt, rowsAt, width, height, upperAt, lowerAt, outAt);
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
 * The page rows the samples of a crop `width` × `height` at a slant draw on (a row more each
 * way than their places, against the rounding their steps gather): along a crop row that stays
 * on one side of the horizon (d > 0, or affine) its place in the page moves one way only, so its
 * ends bound it; a crop crossing the horizon may draw on any row.
 */
function rowsDrawnOn(h: Homography, width: number, height: number, pageHeight: number, affine: boolean): [number, number] {
  let [top, bottom] = [Infinity, -Infinity];
  for (let y = 0; y < height; y++) {
    const { v, d } = rowTerms(h, y);
    const [vEnd, dEnd] = [v + h[3] * (width - 1), d + h[6] * (width - 1)];
    if (!affine && !(d > 0 && dEnd > 0)) return [0, pageHeight - 1];
    for (const place of affine ? [v, vEnd] : [v / d, vEnd / dEnd]) {
      const row = Math.min(pageHeight - 1, Math.max(0, place - 0.5)) | 0;
      [top, bottom] = [Math.min(top, row), Math.max(bottom, row)];
    }
  }
  return [Math.max(0, top - 1), Math.min(pageHeight - 1, bottom + 2)];
}

/** A line at any slant: each crop pixel's place in the page through the homography (divided only where it has a perspective). */
function cutSlanted(image: RgbImage, h: Homography, width: number, height: number, target: CropTarget): void {
  const { width: w, height: hh } = image;
  // A line merely turned (a scan's, not a photo's) has no perspective to divide by.
  const affine = (Math.abs(h[6]) * width + Math.abs(h[7]) * height) < NOISE;
  const outAt = 0;
  const [top, bottom] = rowsDrawnOn(h, width, height, hh, affine);
  const page = copyRows(image, top, bottom, outAt + cropBytes(width, height));
  for (let y = 0; y < height; y++) {
    const { u, v, d } = rowTerms(h, y);
    const inside = rowInside(u, v, d, h[0], h[3], h[6], width, image, affine);
    module.cutRow(page, w, hh, u, v, d, h[0], h[3], h[6], +affine, +inside, width, outAt + 4 * y * width, 4 * width * height);
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
function rowInside(u: number, v: number, d: number, du: number, dv: number, dd: number, width: number, page: RgbImage, affine: boolean): boolean {
  const steps = width - 1;
  const [uEnd, vEnd, dEnd] = [u + du * steps, v + dv * steps, d + dd * steps];
  if (affine) return between(u, uEnd, page.width) && between(v, vEnd, page.height);
  return d > 0 && dEnd > 0 && between(u / d, uEnd / dEnd, page.width) && between(v / d, vEnd / dEnd, page.height);
}

/** Whether the pixel centres from `first` to `last` (either way round) lie inside an axis `size` pixels long, with a pixel after each. */
const between = (first: number, last: number, size: number) => Math.min(first, last) - 0.5 >= INSIDE && Math.max(first, last) - 0.5 < size - 1 - INSIDE;
