/**
 * How the print of a flat view runs, and the view drawn with it upright. A page photographed at a
 * slant is seen flat from how its rows converge and how their height changes with depth (see
 * ocr/perspective.ts); that sets its rows parallel, but not level: they keep what skew the first
 * reading's turn left, up to 10° on a page tilted 45°, more than tesseract's own deskew takes
 * out. And its columns stand square to the rows only when the camera's focal length is the one
 * taken; where it is not, the view's strokes lean like italics, which PP-OCR's recogniser reads
 * and tesseract, trained on upright print, does not. Both are measured from the ink alone:
 * print's strokes and a form's rules stand in columns, and its lines run in rows, so the shear
 * under which the ink's counts in each column (or row) are most uneven, their sum of squares
 * greatest, is the one that stands the columns up (or lays the rows level).
 */
import type { Homography, Pixels } from '../homography.js';

/** Darker than this is ink (the view is of a page lit evenly: paper white, print dark). */
const INK = 128;
/** The greatest shear looked for: 45°, either way. */
const MAX_SHEAR = 1;
const COARSE_STEP = 0.02;
const FINE_STEP = 0.004;
/** A skew or lean under about 2° is left alone: tesseract reads it, and a view drawn again is resampled twice. */
const MIN_SLANT = 0.035;
/** Ink points enough to measure by; a denser page is sampled. */
const MAX_SAMPLES = 150_000;
/**
 * Columns are counted in bands of rows about a line of print high: a stroke's own pixels line up
 * only at its lean, where over the whole page marks of different rows line up at other shears too
 * (a form's columns, or characters spaced alike). Rows are counted across the whole view: a line
 * of print is long.
 */
const COLUMN_BAND = 32;

/** The view drawn upright: its size, and where each of its points lies in the view as it was. */
export interface UprightView {
  width: number;
  height: number;
  toLeaning: Homography;
}

/**
 * How the view's print runs: its rows along (1, rowSlope), its columns along (−columnShear, 1)
 * (the shear x → x + columnShear·(y − height/2) stands them up); both 0 when it has no ink to
 * tell. A view turned by θ has both tan θ; one leaning by s but level, a columnShear of s.
 */
export interface Grain {
  rowSlope: number;
  columnShear: number;
}

export function grainOf(view: Pixels): Grain {
  const ink = inkPoints(view);
  if (ink.length === 0) return { rowSlope: 0, columnShear: 0 };
  const columnShear = strongestShear(ink, { across: view.width, along: view.height, band: COLUMN_BAND, column: true });
  // The shear y → y + r·(x − width/2) that lays the rows level is minus their slope.
  const rowSlope = -strongestShear(ink, { across: view.height, along: view.width, band: view.width, column: false });
  return { rowSlope, columnShear };
}

/**
 * The view with its rows laid level and its columns stood square to them, at its rows' scale, or
 * undefined when it is skewed and leans too little to matter.
 */
export function uprightView(view: Pixels): UprightView | undefined {
  const { rowSlope, columnShear } = grainOf(view);
  if (Math.abs(rowSlope) < MIN_SLANT && Math.abs(columnShear - rowSlope) < MIN_SLANT) return undefined;
  // From upright to leaning, about the middles: a level row to one along (1, rowSlope), an upright column to one along (−columnShear, 1).
  const scale = 1 / Math.hypot(1, rowSlope);
  const [a, b, c, d] = [scale, -columnShear * scale, rowSlope * scale, scale];
  const determinant = a * d - b * c;
  const corners = [-1, 1].flatMap((sx) => [-1, 1].map((sy) => ({ x: (sx * view.width) / 2, y: (sy * view.height) / 2 })));
  const upright = corners.map(({ x, y }) => ({ u: (d * x - b * y) / determinant, v: (a * y - c * x) / determinant }));
  const width = Math.ceil(Math.max(...upright.map(({ u }) => u)) * 2);
  const height = Math.ceil(Math.max(...upright.map(({ v }) => v)) * 2);
  const toLeaning: Homography = [a, b, view.width / 2 - (a * width + b * height) / 2, c, d, view.height / 2 - (c * width + d * height) / 2, 0, 0, 1];
  return { width, height, toLeaning };
}

/** Every ink pixel's centre, as x, y pairs, every k-th of them on a page with more than MAX_SAMPLES. */
function inkPoints({ data, width, height }: Pixels): Float64Array {
  let count = 0;
  for (let i = 0; i < width * height; i++) if (data[i]! < INK) count++;
  const every = Math.max(1, Math.ceil(count / MAX_SAMPLES));
  const points = new Float64Array(2 * Math.ceil(count / every));
  let seen = 0;
  let kept = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (data[y * width + x]! >= INK || seen++ % every !== 0) continue;
      points[kept++] = x + 0.5;
      points[kept++] = y + 0.5;
    }
  }
  return points.subarray(0, kept);
}

/**
 * Which way the ink is counted: in columns (x sheared along y, in bands of `band` rows) or in
 * rows (y sheared along x); `across` is the extent counted across, `along` the one sheared along.
 */
interface Counting {
  across: number;
  along: number;
  band: number;
  column: boolean;
}

/** The shear, from −MAX_SHEAR to MAX_SHEAR, under which the ink's counts are most uneven. */
function strongestShear(ink: Float64Array, counting: Counting): number {
  const counts = new Uint32Array(Math.ceil(counting.along / counting.band) * binsOf(counting));
  const sharpness = (shear: number) => sumOfSquares(ink, counting, shear, counts);
  const coarse = bestOf(-MAX_SHEAR, MAX_SHEAR, COARSE_STEP, sharpness);
  return bestOf(Math.max(-MAX_SHEAR, coarse - COARSE_STEP), Math.min(MAX_SHEAR, coarse + COARSE_STEP), FINE_STEP, sharpness);
}

const binsOf = ({ across, along }: Counting) => across + Math.ceil(MAX_SHEAR * along) + 2;

/** The sum of squares of the ink's counts in each bin of each band, the ink sheared by `shear` about the middle. */
function sumOfSquares(ink: Float64Array, counting: Counting, shear: number, counts: Uint32Array): number {
  const { along, band, column } = counting;
  const [first, second] = column ? [0, 1] : [1, 0];
  const offset = Math.ceil(MAX_SHEAR * along) / 2;
  const bins = binsOf(counting);
  const middle = along / 2;
  const at = (i: number) => Math.floor(ink[i + second]! / band) * bins + Math.floor(ink[i + first]! + shear * (ink[i + second]! - middle) + offset);
  let sum = 0;
  for (let i = 0; i < ink.length; i += 2) sum += 2 * counts[at(i)]!++ + 1;
  for (let i = 0; i < ink.length; i += 2) counts[at(i)] = 0;
  return sum;
}

/**
 * The x in [from, to], by `step`, where `score` is greatest; the middle of them where several are
 * (a stroke a few pixels high lines up alike over a range of shears).
 */
function bestOf(from: number, to: number, step: number, score: (x: number) => number): number {
  let best: number[] = [];
  let bestScore = -1;
  for (let k = Math.ceil(from / step); k * step <= to + 1e-12; k++) {
    const x = k * step;
    const value = score(x);
    if (value > bestScore) [best, bestScore] = [[x], value];
    else if (value === bestScore) best.push(x);
  }
  return best.reduce((sum, x) => sum + x, 0) / best.length;
}
