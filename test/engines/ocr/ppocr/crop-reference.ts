/**
 * crop.ts's cuts as plain JavaScript, what crop.wat must match bit for bit (crop.ts says how a
 * line is cut): a level line's columns and rows sampled once each, a slanted one's pixels through
 * its whole homography.
 */
import { homography, type Homography } from '../../../../src/engines/ocr/homography.js';
import { rectQuad } from '../../../../src/engines/ocr/ppocr/geometry.js';
import { isAffine, liesLevel, rowInside, type CropTarget } from '../../../../src/engines/ocr/ppocr/crop.js';
import type { RgbImage } from '../../../../src/engines/ocr/ppocr/image.js';
import type { Quad } from '../../../../src/engines/ocr/plane.js';

/** crop.ts's cutNormalised, in JavaScript. */
export function cutNormalisedInJs(image: RgbImage, quad: Quad, width: number, height: number, target: CropTarget): void {
  const h = homography(rectQuad(width, height), quad);
  if (liesLevel(h, width, height)) cutLevel(image, h, width, height, target);
  else cutSlanted(image, h, width, height, target);
}

/** Where a crop's column (or row) samples the page: the pixel before it, the step to the next one, and the share of the next. */
interface Samples {
  first: Int32Array;
  next: Int32Array;
  share: Float64Array;
}

/**
 * The samples of crop pixels that fall at `positions` along one axis of the page, `size` pixels
 * long there; `unit` is the distance between neighbouring pixels along that axis in its data.
 */
function samplesAlong(positions: Float64Array, size: number, unit: number): Samples {
  const count = positions.length;
  const samples = { first: new Int32Array(count), next: new Int32Array(count), share: new Float64Array(count) };
  for (let i = 0; i < count; i++) {
    const at = Math.min(size - 1, Math.max(0, positions[i]! - 0.5));
    const before = at | 0;
    samples.first[i] = before * unit;
    samples.next[i] = before + 1 < size ? unit : 0;
    samples.share[i] = at - before;
  }
  return samples;
}

/** One page row blended across at a crop's columns: RGB per column; `at`, the row's start in the page's data. */
interface BlendedRow {
  at: number;
  rgb: Float64Array;
}

/**
 * A line that lies level in the page: its columns and rows sampled once each, and each page row
 * it draws on blended across once (a crop is taller than its line on the page, so its rows share
 * page rows), then every crop row blended down from the two page rows about it.
 */
function cutLevel(image: RgbImage, h: Homography, width: number, height: number, { out, offset, stride, planeSize }: CropTarget): void {
  const { data, width: w } = image;
  // At pixel centres, x' = h0·x + h2 (stepped along a row, as cutSlanted steps it) and y' = h4·y + h5.
  const xs = new Float64Array(width);
  for (let x = 0, u = h[0] * 0.5 + h[2]; x < width; x++, u += h[0]) xs[x] = u;
  const columns = samplesAlong(xs, w, 3);
  const rows = samplesAlong(Float64Array.from({ length: height }, (_, y) => h[4] * (y + 0.5) + h[5]), image.height, 3 * w);
  let upper: BlendedRow = { at: -1, rgb: new Float64Array(3 * width) };
  let lower: BlendedRow = { at: -1, rgb: new Float64Array(3 * width) };
  for (let y = 0; y < height; y++) {
    const top = rows.first[y]!;
    const bottom = top + rows.next[y]!;
    if (upper.at !== top && lower.at === top) [upper, lower] = [lower, upper];
    if (upper.at !== top) blendAcross(data, top, columns, upper);
    if (lower.at !== bottom) blendAcross(data, bottom, columns, lower);
    const fy = rows.share[y]!;
    const gy = 1 - fy;
    const blue = offset + y * stride;
    const green = blue + planeSize;
    const red = green + planeSize;
    const [above, below] = [upper.rgb, lower.rgb];
    for (let x = 0, k = 0; x < width; x++, k += 3) {
      out[red + x] = (above[k]! * gy + below[k]! * fy) * PER_LEVEL - 1;
      out[green + x] = (above[k + 1]! * gy + below[k + 1]! * fy) * PER_LEVEL - 1;
      out[blue + x] = (above[k + 2]! * gy + below[k + 2]! * fy) * PER_LEVEL - 1;
    }
  }
}

/** The page row starting at `at` in `data`, blended across at the crop's columns, into `row`. */
function blendAcross(data: Uint8Array, at: number, columns: Samples, row: BlendedRow): void {
  const { first, next, share } = columns;
  const rgb = row.rgb;
  for (let x = 0, k = 0; x < first.length; x++, k += 3) {
    const fx = share[x]!;
    const gx = 1 - fx;
    const a = at + first[x]!;
    const b = a + next[x]!;
    rgb[k] = data[a]! * gx + data[b]! * fx;
    rgb[k + 1] = data[a + 1]! * gx + data[b + 1]! * fx;
    rgb[k + 2] = data[a + 2]! * gx + data[b + 2]! * fx;
  }
  row.at = at;
}

/** A line at any slant: each crop pixel's place in the page through the homography (divided only where it has a perspective). */
function cutSlanted(image: RgbImage, h: Homography, width: number, height: number, { out, offset, stride, planeSize }: CropTarget): void {
  const [h0, h1, h2, h3, h4, h5, h6, h7, h8] = h;
  const { data, width: w, height: hh } = image;
  const affine = isAffine(h, width, height);
  for (let y = 0; y < height; y++) {
    // Along a row of the crop the homography's three terms grow linearly: step them, divide once.
    const cy = y + 0.5;
    let u = h0 * 0.5 + h1 * cy + h2;
    let v = h3 * 0.5 + h4 * cy + h5;
    let d = h6 * 0.5 + h7 * cy + h8;
    const row = y * stride;
    if (rowInside(u, v, d, h0, h3, h6, width, image, affine)) {
      cutInside(data, w, { u, v, d, du: h0, dv: h3, dd: h6, affine }, width, out, offset + row, planeSize);
      continue;
    }
    for (let x = 0; x < width; x++, u += h0, v += h3, d += h6) {
      const sx = Math.min(w - 1, Math.max(0, (affine ? u : u / d) - 0.5));
      const sy = Math.min(hh - 1, Math.max(0, (affine ? v : v / d) - 0.5));
      const x0 = sx | 0;
      const y0 = sy | 0;
      blend(data, (y0 * w + x0) * 3, x0 + 1 < w ? 3 : 0, y0 + 1 < hh ? 3 * w : 0, sx - x0, sy - y0, out, offset + row + x, planeSize);
    }
  }
}

/** A crop row's homography terms at its first pixel, their steps along it, and whether it is affine (see cutSlanted). */
interface RowTerms {
  u: number;
  v: number;
  d: number;
  du: number;
  dv: number;
  dd: number;
  affine: boolean;
}

/** A crop row that lies inside the page (see rowInside), written from `at` in `out`: as cutSlanted samples it, with no edge to clamp to. */
function cutInside(data: Uint8Array, w: number, { u, v, d, du, dv, dd, affine }: RowTerms, width: number, out: Float32Array, at: number, planeSize: number): void {
  for (let x = 0; x < width; x++, u += du, v += dv, d += dd) {
    const sx = (affine ? u : u / d) - 0.5;
    const sy = (affine ? v : v / d) - 0.5;
    const x0 = sx | 0;
    const y0 = sy | 0;
    blend(data, (y0 * w + x0) * 3, 3, 3 * w, sx - x0, sy - y0, out, at + x, planeSize);
  }
}

/** v / 127.5 − 1 maps a byte onto −1 to 1: a multiplication, cheaper than the division. */
const PER_LEVEL = 1 / 127.5;

/**
 * The page's RGB pixel at `a` blended bilinearly with the one `right` of it, the one `down` from
 * it and the one right of that (shares `fx` across, `fy` down), written normalised to the BGR
 * planes of `out` at `at`.
 */
function blend(data: Uint8Array, a: number, right: number, down: number, fx: number, fy: number, out: Float32Array, at: number, planeSize: number): void {
  const b = a + right;
  const c = a + down;
  const e = c + right;
  const wa = (1 - fx) * (1 - fy);
  const wb = fx * (1 - fy);
  const wc = (1 - fx) * fy;
  const we = fx * fy;
  out[at + 2 * planeSize] = (data[a]! * wa + data[b]! * wb + data[c]! * wc + data[e]! * we) * PER_LEVEL - 1;
  out[at + planeSize] = (data[a + 1]! * wa + data[b + 1]! * wb + data[c + 1]! * wc + data[e + 1]! * we) * PER_LEVEL - 1;
  out[at] = (data[a + 2]! * wa + data[b + 2]! * wb + data[c + 2]! * wc + data[e + 2]! * we) * PER_LEVEL - 1;
}
