/**
 * The plane geometry a page's readers and their callers share: points, quadrilaterals, and a
 * page turned by any angle about its centre onto a canvas grown to hold it whole, as sharp's
 * `rotate(degrees)` turns it. A reading's boxes are in such a turned page (OcrPage.rotation);
 * these functions carry points between it and the page as it was sent.
 */
import type { Box, Point, Quad } from '../types.js';

export type { Point, Quad };

export interface Size {
  width: number;
  height: number;
}

/** A clockwise quarter turn, in degrees. */
export type QuarterTurn = 0 | 90 | 180 | 270;

/** The angle in [0, 360). */
export const normalDegrees = (degrees: number): number => ((degrees % 360) + 360) % 360;

export const isQuarterTurn = (degrees: number): boolean => normalDegrees(degrees) % 90 === 0;

export const distance = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);

/**
 * The size of a page `size` turned `degrees` clockwise: its sides swapped by a quarter turn, the
 * box around it otherwise (sharp may round it a pixel differently; callers that turn images take
 * the turned image's own size).
 */
export function turnedSize(size: Size, degrees: number): Size {
  const turn = normalDegrees(degrees);
  if (turn === 90 || turn === 270) return { width: size.height, height: size.width };
  if (isQuarterTurn(turn)) return { ...size };
  const radians = (turn * Math.PI) / 180;
  const cos = Math.abs(Math.cos(radians));
  const sin = Math.abs(Math.sin(radians));
  return { width: Math.round(size.width * cos + size.height * sin), height: Math.round(size.width * sin + size.height * cos) };
}

/** `p` rotated `degrees` clockwise (y pointing down) about `from`'s centre, then placed about `to`'s. */
function rotateAbout(p: Point, degrees: number, from: Size, to: Size): Point {
  const turn = normalDegrees(degrees);
  const dx = p.x - from.width / 2;
  const dy = p.y - from.height / 2;
  // Exact for quarter turns: no rounding error creeps into pages turned by them.
  const [cos, sin] =
    turn === 0 ? [1, 0] : turn === 90 ? [0, 1] : turn === 180 ? [-1, 0] : turn === 270 ? [0, -1] : [Math.cos((turn * Math.PI) / 180), Math.sin((turn * Math.PI) / 180)];
  return { x: to.width / 2 + dx * cos - dy * sin, y: to.height / 2 + dx * sin + dy * cos };
}

/** Where a point of a page `source` lands once it is turned `degrees` clockwise onto a canvas `turned`. */
export function turnPoint(p: Point, degrees: number, source: Size, turned: Size): Point {
  return rotateAbout(p, degrees, source, turned);
}

/** Where a point of the turned page (`turned`) was in the page `source` before it was turned `degrees` clockwise. */
export function unturnPoint(p: Point, degrees: number, turned: Size, source: Size): Point {
  return rotateAbout(p, -degrees, turned, source);
}

/**
 * A point of an image tesseract deskewed by `radians` (clockwise positive, Leptonica's
 * convention, y pointing down) about its centre, in the image as it was before.
 */
export function undoDeskew({ x, y }: Point, radians: number, size: Size): Point {
  if (!radians) return { x, y };
  const cx = size.width / 2;
  const cy = size.height / 2;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  const dx = x - cx;
  const dy = y - cy;
  return { x: cx + dx * cos + dy * sin, y: cy - dx * sin + dy * cos };
}

/** The box's corners as a quad, top-left first, clockwise. */
export const quadOf = (box: Box): Quad => [
  { x: box.x0, y: box.y0 },
  { x: box.x1, y: box.y0 },
  { x: box.x1, y: box.y1 },
  { x: box.x0, y: box.y1 },
];

/** The axis-aligned box around points. */
export function boundingBox(points: readonly Point[]): Box {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const { x, y } of points) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  return { x0, y0, x1, y1 };
}

const cross = (o: Point, a: Point, b: Point) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);

/** Whether `p` lies in the convex quad (on its edge included), whichever way round its corners go. */
export function insideQuad(p: Point, quad: Quad): boolean {
  let positive = false;
  let negative = false;
  for (let i = 0; i < 4; i++) {
    const side = cross(quad[i]!, quad[(i + 1) % 4]!, p);
    if (side > 1e-9) positive = true;
    else if (side < -1e-9) negative = true;
    if (positive && negative) return false;
  }
  return true;
}

/** The point at (u, v) of the quad, each 0–1: along its top edge, and down from it. */
export function pointInQuad(quad: Quad, u: number, v: number): Point {
  const [a, b, c, d] = quad;
  const top = { x: a.x + (b.x - a.x) * u, y: a.y + (b.y - a.y) * u };
  const bottom = { x: d.x + (c.x - d.x) * u, y: d.y + (c.y - d.y) * u };
  return { x: top.x + (bottom.x - top.x) * v, y: top.y + (bottom.y - top.y) * v };
}
