/**
 * The lean left in a flat view. A page photographed at a slant is seen flat from how its rows
 * converge and how their height changes with depth (see ocr/perspective.ts); that sets its rows
 * parallel, but its columns stand square to them only when the camera's focal length is the one
 * taken, and where it is not, the view's strokes lean like italics (34° on a report tilted 45°
 * sideways). PP-OCR's recogniser reads leaning print; tesseract, trained on upright print, read
 * 4% of that report. Measured from the ink alone: print's strokes and a form's rules stand in
 * columns, and its lines run in rows, so the shear under which the ink's counts in each column
 * (or row) are most uneven, their sum of squares greatest, is the one that stands the columns up
 * (or lays the rows level). Only the lean of the columns against the rows is taken out: a view
 * merely turned (its rows off level by the skew the first reading left) is tesseract's to deskew,
 * and standing its columns up alone would lean its rows' print the other way.
 */
import type { Homography, Pixels } from '../homography.js';

/** Darker than this is ink (the view is of a page lit evenly: paper white, print dark). */
const INK = 128;
/** The greatest shear looked for: 45°, either way. */
const MAX_SHEAR = 1;
const COARSE_STEP = 0.02;
const FINE_STEP = 0.004;
/** A lean under about 2° is left alone: tesseract reads it, and a view drawn again is resampled twice. */
const MIN_LEAN = 0.035;
/** Ink points enough to measure by; a denser page is sampled. */
const MAX_SAMPLES = 150_000;
/**
 * Columns are counted in bands of rows about a line of print high: a stroke's own pixels line up
 * only at its lean, where over the whole page marks of different rows line up at other shears too
 * (a form's columns, or characters spaced alike). Rows are counted across the whole view: a line
 * of print is long.
 */
const COLUMN_BAND = 32;

/** The view with its lean taken out: its size, and where each of its points lies in the leaning view. */
export interface UprightView {
  width: number;
  height: number;
  toLeaning: Homography;
}

/**
 * How the view's columns lean against its rows, as the shear s (x → x + s·(y − height/2)) that
 * sets them square to the rows, for small skews; 0 when it has no ink to tell.
 */
export function leanOf(view: Pixels): number {
  const ink = inkPoints(view);
  if (ink.length === 0) return 0;
  const columns = strongestShear(ink, { across: view.width, along: view.height, band: COLUMN_BAND, column: true });
  const rows = strongestShear(ink, { across: view.height, along: view.width, band: view.width, column: false });
  // Turned by θ, columns need a shear of tan θ and rows one of −tan θ: their sum is the lean alone.
  return columns + rows;
}

/** The view with its lean taken out, or undefined when it leans too little to matter. */
export function uprightView(view: Pixels): UprightView | undefined {
  const shear = leanOf(view);
  if (Math.abs(shear) < MIN_LEAN) return undefined;
  const grown = Math.abs(shear) * view.height;
  // x' = x + s·(y − h/2) + |s|·h/2, so x = x' − s·y' + (s·h − |s|·h)/2.
  const toLeaning: Homography = [1, -shear, (shear * view.height - grown) / 2, 0, 1, 0, 0, 0, 1];
  return { width: view.width + Math.ceil(grown), height: view.height, toLeaning };
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
