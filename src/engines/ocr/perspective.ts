/**
 * A page photographed at a slant, made flat again from its own text lines. In a photo of a page
 * tilted away from the camera, its rows converge toward a vanishing point and its far rows are
 * shorter; the detector loses or merges the far rows' small print, and a line cut straight from
 * its quad keeps the tilt's squash. Once the page is turned level, each detected line gives its
 * direction and its height where it lies; the plane's perspective (the vanishing line
 * 1 + p·x + q·y = 0, about the page's centre) makes the rows run parallel again (p, from their
 * directions) and the lines as high far as near (q, from their heights). The page is then
 * detected once in that flat view, and its lines are cut from the page as sent through the
 * inverse: each line's quad is a true quadrilateral there, and its crop comes out flat.
 *
 * The view is also stretched across the vanishing line by 1 / cos(tilt) (the tilt taken for a
 * camera whose focal length is the photo's longer side, as a phone's about is): without it a
 * line seen at 45° keeps characters 0.7 of their height, and the recogniser misreads them.
 */
import type { PagePerspective } from '../types.js';
import { distance, turnPoint, type Point, type Quad, type Size } from './plane.js';
import { homography, type Homography } from './homography.js';

/** The plane's perspective about a frame's centre, in that frame's pixels. */
export type Perspective = PagePerspective;

/**
 * The same perspective in the frame turned a quarter turn (`quarter` degrees clockwise) about its
 * centre: p·x + q·y is kept when (x, y) and (p, q) turn alike.
 */
export function turnedPerspective({ p, q }: Perspective, quarter: number): Perspective {
  const point = turnPoint({ x: p, y: q }, quarter, { width: 0, height: 0 }, { width: 0, height: 0 });
  return { p: point.x, q: point.y };
}

/**
 * Lines fitted: at least this many, and as long as this many times their height (short ones
 * point anywhere). A lab report whose table holds short cells has five such lines; tilted 45°
 * and read as it lay, its rows converging, tesseract read a quarter of it.
 */
const MIN_LINES = 5;
const MIN_LINE_ASPECT = 3;
/** Lines further than this from level are not rows of the page (a stamp, a margin note). */
const MAX_LINE_DEGREES = 25;
/**
 * Perspective under which a page is read as it lies: the local scale over its text varies by
 * less than this factor (flat scans, and photos taken nearly square on, which the detector reads
 * well). The lines' heights tell less than the tilt's whole effect: a real photo tilted 30°
 * measured 1.26 and, read as it lay, lost its name's line; seen flat, it read it.
 */
const MIN_SCALE_RATIO = 1.2;
/** The vanishing line is kept this far outside the text: beyond it the flat view would blow up. */
const MIN_DEPTH = 0.25;
/** Residuals beyond this many median deviations are not rows (merged blobs, headings). */
const OUTLIER = 3;

interface LineSample {
  centre: Point;
  /** Tangent of the line's direction. */
  slope: number;
  height: number;
  length: number;
}

function sample(quad: Quad, centre: Point): LineSample {
  const mid = (a: Point, b: Point) => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
  const start = mid(quad[0], quad[3]);
  const end = mid(quad[1], quad[2]);
  const c = mid(start, end);
  return {
    centre: { x: c.x - centre.x, y: c.y - centre.y },
    slope: (end.y - start.y) / (end.x - start.x),
    height: (distance(quad[0], quad[3]) + distance(quad[1], quad[2])) / 2,
    length: distance(start, end),
  };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)]! : 0;
};

/**
 * Weighted least squares of y = a + b·x, refitted once without the points whose residuals lie
 * beyond OUTLIER median deviations.
 */
function robustLine(xs: readonly number[], ys: readonly number[], weights: readonly number[]): { a: number; b: number } {
  const fit = (keep: readonly boolean[]) => {
    let sw = 0;
    let sx = 0;
    let sy = 0;
    let sxx = 0;
    let sxy = 0;
    xs.forEach((x, i) => {
      if (!keep[i]) return;
      const w = weights[i]!;
      const y = ys[i]!;
      sw += w;
      sx += w * x;
      sy += w * y;
      sxx += w * x * x;
      sxy += w * x * y;
    });
    const b = (sw * sxy - sx * sy) / (sw * sxx - sx * sx || 1);
    return { a: (sy - b * sx) / (sw || 1), b };
  };
  const first = fit(xs.map(() => true));
  const residuals = xs.map((x, i) => Math.abs(ys[i]! - first.a - first.b * x));
  const spread = median(residuals) || 1e-9;
  return fit(residuals.map((r) => r <= OUTLIER * spread));
}

/**
 * The perspective of a page lying level in `frame`, from its detected lines there; undefined when
 * too few lines tell it, or when it is too slight to matter (MIN_SCALE_RATIO).
 */
export function estimatePerspective(quads: readonly Quad[], frame: Size): Perspective | undefined {
  const centre = { x: frame.width / 2, y: frame.height / 2 };
  const lines = quads
    .map((quad) => sample(quad, centre))
    .filter((line) => line.length >= MIN_LINE_ASPECT * line.height && Math.abs(Math.atan(line.slope)) <= (MAX_LINE_DEGREES * Math.PI) / 180);
  if (lines.length < MIN_LINES) return undefined;
  // A row through (x, y) runs at slope t = p·y / (1 + p·x), so t = c + p·(y − t·x) (c: what skew is left).
  const { b: p } = robustLine(
    lines.map((line) => line.centre.y - line.slope * line.centre.x),
    lines.map((line) => line.slope),
    lines.map((line) => line.length),
  );
  const q = heightPerspective(lines, p, Math.max(frame.width, frame.height) / 2);
  if (q === undefined) return undefined;
  const perspective = { p, q };
  const depths = lines.map((line) => depth(perspective, line.centre));
  if (Math.min(...depths) < MIN_DEPTH || Math.max(...depths) / Math.min(...depths) < MIN_SCALE_RATIO) return undefined;
  return perspective;
}

const depth = ({ p, q }: Perspective, { x, y }: Point) => 1 + p * x + q * y;

/**
 * A point of the frame as the page is seen flat, about the frame's centre and at the scale of
 * the page there: its rows run parallel, its far lines as high as its near ones (up to the
 * stretch across the vanishing line, which keeps both).
 */
export function seenFlat(perspective: Perspective, frame: Size): (point: Point) => Point {
  const centre = { x: frame.width / 2, y: frame.height / 2 };
  return (point) => {
    const relative = { x: point.x - centre.x, y: point.y - centre.y };
    const w = depth(perspective, relative);
    return { x: relative.x / w, y: relative.y / w };
  };
}

/**
 * q such that the lines, seen flat, are as high far as near: a line's height there is its height
 * as seen × (1 + p·x) / (1 + p·x + q·y)². Fonts differ (a title, small print), so the q whose
 * log heights spread least about their median is taken, over q·reach from −0.9 to 0.9.
 */
function heightPerspective(lines: readonly LineSample[], p: number, reach: number): number | undefined {
  let best: { q: number; spread: number } | undefined;
  for (let k = -90; k <= 90; k++) {
    const q = k / 100 / reach;
    const logs: number[] = [];
    for (const line of lines) {
      const w = depth({ p, q }, line.centre);
      if (w <= MIN_DEPTH) break;
      logs.push(Math.log(line.height) + Math.log(1 + p * line.centre.x) - 2 * Math.log(w));
    }
    if (logs.length < lines.length) continue;
    const middle = median(logs);
    const spread = median(logs.map((value) => Math.abs(value - middle)));
    if (!best || spread < best.spread - 1e-9 || (Math.abs(spread - best.spread) <= 1e-9 && Math.abs(q) < Math.abs(best.q))) best = { q, spread };
  }
  return best?.q;
}

/** The flat view of a page: where its points land in it, its size, and its scale at its nearest text. */
export interface FlatView {
  toFlat: Homography;
  size: Size;
  /** Pixels of the flat view per pixel of the page where its text lies nearest. */
  scale: number;
}

/**
 * The flat view of the frame's region `around` (the text), drawn `scale` times the size of its
 * nearest text (the far text grown to match it), at most `maxSide` pixels long; `focal` is the
 * camera's focal length taken for the stretch, in the frame's pixels. Undefined when the
 * vanishing line comes near the region.
 */
export function flatView(perspective: Perspective, frame: Size, around: Quad, focal: number, size: { scale: number; maxSide: number }): FlatView | undefined {
  const centre = { x: frame.width / 2, y: frame.height / 2 };
  const relative = (point: Point) => ({ x: point.x - centre.x, y: point.y - centre.y });
  const depths = around.map((corner) => depth(perspective, relative(corner)));
  if (Math.min(...depths) < MIN_DEPTH) return undefined;
  const { p, q } = perspective;
  const norm = Math.hypot(p, q);
  const n = { x: p / norm, y: q / norm };
  // 1 / cos(tilt), where tan(tilt) = focal · |(p, q)|.
  const stretch = Math.hypot(1, focal * norm);
  const nearest = Math.max(...depths);
  const level = seenFlat(perspective, frame);
  const flat = (point: Point): Point => {
    const levelled = level(point);
    const r = { x: levelled.x * nearest, y: levelled.y * nearest };
    const along = (r.x * n.x + r.y * n.y) * (stretch - 1);
    return { x: r.x + along * n.x, y: r.y + along * n.y };
  };
  const corners = around.map(flat);
  const x0 = Math.min(...corners.map((c) => c.x));
  const y0 = Math.min(...corners.map((c) => c.y));
  const width = Math.max(...corners.map((c) => c.x)) - x0;
  const height = Math.max(...corners.map((c) => c.y)) - y0;
  const scale = Math.min(size.scale, size.maxSide / Math.max(width, height));
  const placed = corners.map((c) => ({ x: (c.x - x0) * scale, y: (c.y - y0) * scale })) as Quad;
  return {
    toFlat: homography(around, placed),
    size: { width: Math.max(1, Math.ceil(width * scale)), height: Math.max(1, Math.ceil(height * scale)) },
    scale,
  };
}
