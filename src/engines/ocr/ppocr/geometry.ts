/**
 * Plane geometry of the PP-OCR pipeline: the rotated minimum-area rectangle of a text region
 * (convex hull, then rotating calipers), its unclip (the DB detector's shrunk kernels grown back
 * to the text's extent), and the quads of lines and their parts.
 */
import type { Point, Quad } from '../plane.js';

export interface RotatedRect {
  center: Point;
  /** Along the rectangle's first axis (`angle`), and across it. */
  width: number;
  height: number;
  /** Radians of the first axis from the x axis. */
  angle: number;
}

const cross = (o: Point, a: Point, b: Point) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);

/** Convex hull (Andrew's monotone chain), counter-clockwise in image coordinates' sense of y. */
export function convexHull(points: readonly Point[]): Point[] {
  const sorted = [...points].sort((a, b) => a.x - b.x || a.y - b.y);
  if (sorted.length <= 2) return sorted;
  const lower: Point[] = [];
  for (const p of sorted) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Point[] = [];
  for (let i = sorted.length - 1; i >= 0; i--) {
    const p = sorted[i]!;
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= 0) upper.pop();
    upper.push(p);
  }
  return [...lower.slice(0, -1), ...upper.slice(0, -1)];
}

/**
 * The smallest rectangle around the points: one of its sides lies on an edge of their convex
 * hull, so every hull edge's direction is tried.
 */
export function minAreaRect(points: readonly Point[]): RotatedRect {
  const hull = convexHull(points);
  if (hull.length === 0) return { center: { x: 0, y: 0 }, width: 0, height: 0, angle: 0 };
  if (hull.length === 1) return { center: { ...hull[0]! }, width: 0, height: 0, angle: 0 };
  let best: RotatedRect | undefined;
  let bestArea = Infinity;
  for (let i = 0; i < hull.length; i++) {
    const a = hull[i]!;
    const b = hull[(i + 1) % hull.length]!;
    const angle = Math.atan2(b.y - a.y, b.x - a.x);
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    let minU = Infinity;
    let maxU = -Infinity;
    let minV = Infinity;
    let maxV = -Infinity;
    for (const p of hull) {
      const u = p.x * cos + p.y * sin;
      const v = -p.x * sin + p.y * cos;
      minU = Math.min(minU, u);
      maxU = Math.max(maxU, u);
      minV = Math.min(minV, v);
      maxV = Math.max(maxV, v);
    }
    const area = (maxU - minU) * (maxV - minV);
    if (area < bestArea) {
      bestArea = area;
      const cu = (minU + maxU) / 2;
      const cv = (minV + maxV) / 2;
      best = { center: { x: cu * cos - cv * sin, y: cu * sin + cv * cos }, width: maxU - minU, height: maxV - minV, angle };
    }
  }
  return best!;
}

/**
 * The rectangle grown by `ratio` × area / perimeter on every side: DB's unclip of the text
 * kernel, which its training shrank by the same offset.
 */
export function unclip(rect: RotatedRect, ratio: number): RotatedRect {
  const perimeter = 2 * (rect.width + rect.height);
  if (perimeter === 0) return rect;
  const offset = (rect.width * rect.height * ratio) / perimeter;
  return { ...rect, width: rect.width + 2 * offset, height: rect.height + 2 * offset };
}

/**
 * The rectangle's corners as a text line reads: its long side is the reading direction, and the
 * first corner is the one a reader of an upright line starts at (the smallest x + y of the two
 * candidates), so a line tilted either way keeps its left end first.
 */
export function lineQuad(rect: RotatedRect): Quad {
  const along = rect.width >= rect.height ? rect.angle : rect.angle + Math.PI / 2;
  const length = Math.max(rect.width, rect.height);
  const thickness = Math.min(rect.width, rect.height);
  let ux = Math.cos(along);
  let uy = Math.sin(along);
  // Reading runs left to right (or, for a vertical line, top to bottom).
  if (ux < -1e-9 || (Math.abs(ux) <= 1e-9 && uy < 0)) {
    ux = -ux;
    uy = -uy;
  }
  // The across axis points down the page from the line's top edge.
  const vx = -uy;
  const vy = ux;
  const { x: cx, y: cy } = rect.center;
  const hl = length / 2;
  const ht = thickness / 2;
  return [
    { x: cx - ux * hl - vx * ht, y: cy - uy * hl - vy * ht },
    { x: cx + ux * hl - vx * ht, y: cy + uy * hl - vy * ht },
    { x: cx + ux * hl + vx * ht, y: cy + uy * hl + vy * ht },
    { x: cx - ux * hl + vx * ht, y: cy - uy * hl + vy * ht },
  ];
}

/** The upright rectangle `width` × `height` as a quad, for mapping a crop to its place in the page. */
export const rectQuad = (width: number, height: number): Quad => [
  { x: 0, y: 0 },
  { x: width, y: 0 },
  { x: width, y: height },
  { x: 0, y: height },
];

/**
 * The part of a line's quad (corners from its first along, then back: 0→1 along the line, 3→0
 * across it) between shares `from` and `to` of its length: below 0 or above 1 it runs on past
 * the line's ends.
 */
export function quadAlong([a, b, c, d]: Quad, from: number, to: number): Quad {
  const at = (start: Point, end: Point, share: number) => ({ x: start.x + (end.x - start.x) * share, y: start.y + (end.y - start.y) * share });
  return [at(a, b, from), at(a, b, to), at(d, c, to), at(d, c, from)];
}
