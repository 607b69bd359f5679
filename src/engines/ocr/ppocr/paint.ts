/**
 * Solid black patches (a redaction's paint, a blacked-out box) seen as the paper beside them, in
 * the detector's view only. The detector weighs each part of a page against the whole of it (its
 * squeeze-and-excitation blocks pool over the page): a photo tilted 45° and de-identified, six
 * black quads over 3% of it, was detected with 8 of its 106 lines at the side limit (its far
 * half lost) and read as 7 words; its quads seen as paper, as 93 (the page sent: 92). Lines are
 * still cut from the page as it is, paint and all, and read as they are.
 *
 * A patch is dark (no channel above PAINT), solid (its pixels fill its convex hull: text and a
 * stamp do not), thick (table rules and strokes are thin), without anything light across it
 * (white print on a black bar, a scan's burnt-in annotation) and small (a black background is no
 * paint: filled, the white print on it would vanish).
 */
import type { Point } from '../plane.js';
import { convexHull } from './geometry.js';

/** Brightest channel of a painted pixel (a JPEG of black paint rings a little). */
const PAINT = 40;
/** Share of its convex hull a patch's pixels fill. */
const MIN_SOLID = 0.9;
/** A patch's mean thickness at least (twice its area over its hull's perimeter): at least 200 pixels. */
const MIN_THICKNESS = 8;
/** Share of the image a patch covers at most. */
const MAX_SHARE = 0.05;
/** Grey (any channel) above which a pixel across a patch is print on it. */
const LIGHT = 128;

/** Each solid black patch of the RGB image (`width` × `height`, 3 bytes a pixel) filled with the paper beside it, in place. */
export function paintAsPaper(rgb: Uint8Array, width: number, height: number): void {
  let taken: Uint8Array | undefined;
  for (const seed of sampledPaint(rgb, width, height)) {
    taken ??= new Uint8Array(width * height);
    if (taken[seed]) continue;
    const patch = patchAt(rgb, width, height, seed, taken);
    if (patch.pixels.length <= MAX_SHARE * width * height && isSolid(patch) && !hasLightAcross(rgb, width, patch)) fill(rgb, width, patch);
  }
}

const isPaint = (rgb: Uint8Array, i: number) => rgb[3 * i]! <= PAINT && rgb[3 * i + 1]! <= PAINT && rgb[3 * i + 2]! <= PAINT;

/** Sampled every SAMPLE_STEP pixels each way, a MIN_THICKNESS square of paint holds two samples by two. */
const SAMPLE_STEP = MIN_THICKNESS / 2;

/**
 * A pixel of each two by two samples of paint (every SAMPLE_STEP pixels each way): where a patch
 * may be looked for. A page without paint is looked at no closer; a bold stroke may show one, and
 * its glyph is then found not solid. Samples of paint that touch across more than twice
 * MAX_SHARE of the image (a dark scan's background) are no patch's, and give none: walking
 * them pixel by pixel cost as much as the detector's own preparation.
 */
function sampledPaint(rgb: Uint8Array, width: number, height: number): number[] {
  const columns = Math.ceil(width / SAMPLE_STEP);
  const rows = Math.ceil(height / SAMPLE_STEP);
  const paint = new Uint8Array(columns * rows);
  const corners: number[] = [];
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      const cell = row * columns + column;
      if (!isPaint(rgb, row * SAMPLE_STEP * width + column * SAMPLE_STEP)) continue;
      paint[cell] = 1;
      if (row > 0 && column > 0 && paint[cell - 1] && paint[cell - columns] && paint[cell - columns - 1]) corners.push(cell);
    }
  }
  if (corners.length === 0) return [];
  const largest = (2 * MAX_SHARE * width * height) / (SAMPLE_STEP * SAMPLE_STEP);
  const size = regionSizes(paint, columns, corners);
  return corners.filter((corner) => size(corner) <= largest).map((cell) => (Math.floor(cell / columns) * width + (cell % columns)) * SAMPLE_STEP);
}

/** The number of samples of paint (`paint`, a grid `columns` wide) 4-connected to each of `starts`, as a function of the start. */
function regionSizes(paint: Uint8Array, columns: number, starts: readonly number[]): (start: number) => number {
  const region = new Int32Array(paint.length);
  const sizes = [0];
  const cells = new Int32Array(paint.length);
  for (const start of starts) {
    if (region[start]) continue;
    const label = sizes.length;
    region[start] = label;
    cells[0] = start;
    let count = 1;
    for (let next = 0; next < count; next++) {
      const cell = cells[next]!;
      const column = cell % columns;
      for (const neighbour of [column > 0 ? cell - 1 : -1, column < columns - 1 ? cell + 1 : -1, cell - columns, cell + columns]) {
        if (neighbour >= 0 && neighbour < paint.length && paint[neighbour] && !region[neighbour]) {
          region[neighbour] = label;
          cells[count++] = neighbour;
        }
      }
    }
    sizes.push(count);
  }
  return (start) => sizes[region[start]!]!;
}

/** A patch of paint: its pixels, and each of its rows' first and last column. */
interface Patch {
  pixels: number[];
  rows: Map<number, { from: number; to: number }>;
}

/** The patch of paint 4-connected to `seed`, marked in `taken`. */
function patchAt(rgb: Uint8Array, width: number, height: number, seed: number, taken: Uint8Array): Patch {
  const pixels: number[] = [];
  const rows = new Map<number, { from: number; to: number }>();
  const stack = [seed];
  taken[seed] = 1;
  while (stack.length > 0) {
    const i = stack.pop()!;
    pixels.push(i);
    const x = i % width;
    const y = (i - x) / width;
    const row = rows.get(y);
    if (row) {
      row.from = Math.min(row.from, x);
      row.to = Math.max(row.to, x);
    } else rows.set(y, { from: x, to: x });
    for (const next of [x > 0 ? i - 1 : -1, x < width - 1 ? i + 1 : -1, y > 0 ? i - width : -1, y < height - 1 ? i + width : -1]) {
      if (next >= 0 && !taken[next] && isPaint(rgb, next)) {
        taken[next] = 1;
        stack.push(next);
      }
    }
  }
  return { pixels, rows };
}

/** Whether a patch fills its convex hull (its pixels' corners) and is thick on average. */
function isSolid({ pixels, rows }: Patch): boolean {
  const corners = [...rows].flatMap(([y, { from, to }]): Point[] => [
    { x: from, y },
    { x: to + 1, y },
    { x: from, y: y + 1 },
    { x: to + 1, y: y + 1 },
  ]);
  const hull = convexHull(corners);
  return pixels.length >= MIN_SOLID * polygonArea(hull) && (2 * pixels.length) / perimeter(hull) >= MIN_THICKNESS;
}

/** Whether a pixel between a row's first and last pixel of paint is light. */
function hasLightAcross(rgb: Uint8Array, width: number, { rows }: Patch): boolean {
  for (const [y, { from, to }] of rows) {
    for (let i = y * width + from; i <= y * width + to; i++) {
      if (rgb[3 * i]! > LIGHT || rgb[3 * i + 1]! > LIGHT || rgb[3 * i + 2]! > LIGHT) return true;
    }
  }
  return false;
}

/** The patch filled with the median colour of the pixels just left and right of its rows (white where there are none). */
function fill(rgb: Uint8Array, width: number, { pixels, rows }: Patch): void {
  const beside = [...rows]
    .flatMap(([y, { from, to }]) => [from - 1, to + 1].filter((x) => x >= 0 && x < width).map((x) => y * width + x))
    .filter((i) => !isPaint(rgb, i));
  const paper = [0, 1, 2].map((channel) => {
    const values = beside.map((i) => rgb[3 * i + channel]!).sort((a, b) => a - b);
    return values.length ? values[Math.floor(values.length / 2)]! : 255;
  });
  for (const i of pixels) rgb.set(paper, 3 * i);
}

function polygonArea(polygon: readonly Point[]): number {
  let twice = 0;
  polygon.forEach((p, k) => {
    const q = polygon[(k + 1) % polygon.length]!;
    twice += p.x * q.y - q.x * p.y;
  });
  return Math.abs(twice) / 2;
}

function perimeter(polygon: readonly Point[]): number {
  return polygon.reduce((sum, p, k) => {
    const q = polygon[(k + 1) % polygon.length]!;
    return sum + Math.hypot(q.x - p.x, q.y - p.y);
  }, 0);
}
