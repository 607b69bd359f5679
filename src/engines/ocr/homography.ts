/**
 * Projective maps of the plane, as the readers use them: the homography through four corners
 * (a line's crop onto its quad; a page photographed at a slant onto its flat view), and an image
 * seen through one.
 */
import type { Point, Quad } from './plane.js';

/** Pixels row by row, `channels` bytes each (see warp). */
export interface Pixels {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A 3×3 projective transform, row-major. */
export type Homography = [number, number, number, number, number, number, number, number, number];

/** Solves the 8×8 linear system of a homography by Gaussian elimination with partial pivoting. */
function solve(matrix: number[][], values: number[]): number[] {
  const n = values.length;
  const a = matrix.map((row, i) => [...row, values[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let row = col + 1; row < n; row++) if (Math.abs(a[row]![col]!) > Math.abs(a[pivot]![col]!)) pivot = row;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    const p = a[col]![col]!;
    if (Math.abs(p) < 1e-12) throw new Error('degenerate quadrilateral');
    for (let row = 0; row < n; row++) {
      if (row === col) continue;
      const factor = a[row]![col]! / p;
      for (let k = col; k <= n; k++) a[row]![k]! -= factor * a[col]![k]!;
    }
  }
  return a.map((row, i) => row[n]! / row[i]!);
}

/** The homography that maps `from[i]` onto `to[i]` for the four corners. */
export function homography(from: Quad, to: Quad): Homography {
  const rows: number[][] = [];
  const values: number[] = [];
  for (let i = 0; i < 4; i++) {
    const { x, y } = from[i]!;
    const { x: u, y: v } = to[i]!;
    rows.push([x, y, 1, 0, 0, 0, -u * x, -u * y]);
    values.push(u);
    rows.push([0, 0, 0, x, y, 1, -v * x, -v * y]);
    values.push(v);
  }
  const [h0, h1, h2, h3, h4, h5, h6, h7] = solve(rows, values) as [number, number, number, number, number, number, number, number];
  return [h0, h1, h2, h3, h4, h5, h6, h7, 1];
}

/** The homography that maps p to `outer`(`inner`(p)). */
export function composed(outer: Homography, inner: Homography): Homography {
  return Array.from({ length: 9 }, (_, i) => {
    const [row, col] = [Math.floor(i / 3), i % 3];
    return outer[row * 3]! * inner[col]! + outer[row * 3 + 1]! * inner[3 + col]! + outer[row * 3 + 2]! * inner[6 + col]!;
  }) as Homography;
}

export function project(h: Homography, p: Point): Point {
  const w = h[6] * p.x + h[7] * p.y + h[8];
  return { x: (h[0] * p.x + h[1] * p.y + h[2]) / w, y: (h[3] * p.x + h[4] * p.y + h[5]) / w };
}

/**
 * The image seen through a homography: a `width` × `height` image whose pixel at p is the image's
 * at `fromOut`(p), bilinear, white outside it (the flat view of a page photographed at a slant).
 * `channels` bytes a pixel: 3 for RGB, 1 for grey.
 */
export function warp(image: Pixels, channels: number, fromOut: Homography, width: number, height: number): Pixels {
  const [h0, h1, h2, h3, h4, h5, h6, h7, h8] = fromOut;
  const { data, width: w, height: h } = image;
  const out = new Uint8Array(width * height * channels).fill(255);
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
      const a = (y0 * w + x0) * channels;
      const b = x0 + 1 < w ? a + channels : a;
      const c = y0 + 1 < h ? a + channels * w : a;
      const e = x0 + 1 < w ? c + channels : c;
      const target = (y * width + x) * channels;
      for (let k = 0; k < channels; k++) {
        out[target + k] = Math.round(data[a + k]! * (1 - fx) * (1 - fy) + data[b + k]! * fx * (1 - fy) + data[c + k]! * (1 - fx) * fy + data[e + k]! * fx * fy);
      }
    }
  }
  return { data: out, width, height };
}
