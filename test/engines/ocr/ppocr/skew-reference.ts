/**
 * orientation.ts's skew search as plain JavaScript, what skew.wat (through skew.ts) must match
 * bit for bit: the text pixels of the detector's map sampled as points, their projection
 * profiles' sharpness in each direction, and the search over directions that picks the turn.
 */
import type { DetectionInput } from '../../../../src/engines/ocr/ppocr/detect.js';

/** A page skewed less than this is read as it lies: the detector and recogniser take small skews in their stride. */
const MIN_SKEW_DEGREES = 2;
/** The map is judged at this longest side, one bin a unit: lines of text stay lines, and a page costs milliseconds. */
const PROFILE_SIDE = 640;
/** Text pixels needed before a page's skew means anything (a photo without writing has none). */
const MIN_TEXT_PIXELS = 400;
/** Text pixels used at most: a sample, evenly spread, of a dense page's. */
const MAX_TEXT_PIXELS = 20_000;
/** Directions tried: every degree of a quarter turn, then tenths around the best. */
const COARSE_STEP = 1;
const FINE_STEP = 0.1;
/** The best direction must beat the page as it lies by this factor to be believed (noise scores alike everywhere). */
const MIN_GAIN = 1.15;

/** Text pixels of the map, as points about the page's centre at PROFILE_SIDE. */
export interface TextPixels {
  xs: Float64Array;
  ys: Float64Array;
  /** Every projection lies within this of the centre. */
  reach: number;
  /** The bins of the two profiles, written over by each direction tried (see sharpness) rather than a pair for each. */
  across: Float64Array;
  along: Float64Array;
}

/** orientation.ts's straighteningTurn, in JavaScript. */
export function straighteningTurnInJs(probability: Float32Array, input: DetectionInput, threshold: number): number {
  const text = textPixelsInJs(probability, input, threshold);
  if (text.xs.length < MIN_TEXT_PIXELS) return 0;
  const score = (degrees: number) => {
    const { across, along } = sharpnessInJs(text, degrees);
    return across + along;
  };
  const asItLies = sharpnessInJs(text, 0);
  const level = asItLies.across + asItLies.along;
  let best = { degrees: 0, score: level };
  for (let degrees = -45 + COARSE_STEP; degrees < 45; degrees += COARSE_STEP) {
    if (degrees === 0) continue;
    const candidate = score(degrees);
    if (candidate > best.score) best = { degrees, score: candidate };
  }
  const around = best.degrees;
  // Around level, every direction the fine search could find is a skew under MIN_SKEW_DEGREES.
  if (around !== 0) {
    for (let degrees = around - COARSE_STEP; degrees <= around + COARSE_STEP; degrees += FINE_STEP) {
      const candidate = score(degrees);
      if (candidate > best.score) best = { degrees, score: candidate };
    }
  }
  const skewed = Math.abs(best.degrees) >= MIN_SKEW_DEGREES && best.score >= MIN_GAIN * level;
  const lines = skewed ? best.degrees : 0;
  // Lines pile up across their own direction (a band per line); across the other, only where
  // their characters happen to align.
  const { across, along } = skewed ? sharpnessInJs(text, lines) : asItLies;
  const plumb = along > across;
  if (!skewed && !plumb) return 0;
  // Of the two turns that level the lines, the smaller: whether the page then stands upright or
  // upside down, the read lines say.
  const turn = -(plumb ? lines + 90 : lines);
  return turn <= -90 ? turn + 180 : turn > 90 ? turn - 180 : turn;
}

/** The text pixels of the map, sampled as points, in JavaScript. */
export function textPixelsInJs(probability: Float32Array, input: DetectionInput, threshold: number): TextPixels {
  const { width, height, scaleX, scaleY } = input;
  // Map pixels to page pixels (the map's sides were rounded to multiples of 32 apart), then to PROFILE_SIDE.
  const unit = PROFILE_SIDE / Math.max(width * scaleX, height * scaleY);
  const [kx, ky] = [scaleX * unit, scaleY * unit];
  let count = 0;
  for (let i = 0; i < probability.length; i++) if (probability[i]! > threshold) count++;
  const every = Math.max(1, Math.ceil(count / MAX_TEXT_PIXELS));
  // Each pixel stands for a point anywhere in its square (a fixed pseudo-random one): pixel
  // centres projected level would pile up row by row, and win over every tilted direction.
  let seed = 1;
  const jitter = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
  const xs = new Float64Array(Math.ceil(count / every));
  const ys = new Float64Array(xs.length);
  // Row by row, so that a pixel's place costs no division; of the text pixels, the first of every `every` is kept.
  for (let y = 0, i = 0, kept = 0, skip = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i++) {
      if (probability[i]! <= threshold || skip-- > 0) continue;
      skip = every - 1;
      xs[kept] = (x + jitter() - width / 2) * kx;
      ys[kept++] = (y + jitter() - height / 2) * ky;
    }
  }
  const reach = Math.hypot(width * kx, height * ky) / 2 + 1;
  const bins = Math.ceil(2 * reach) + 2;
  return { xs, ys, reach, across: new Float64Array(bins), along: new Float64Array(bins) };
}

/**
 * How sharply the text piles up when projected across lines running at `degrees` (clockwise),
 * and across lines at right angles to them: the energy of each profile's steps. Each point is
 * shared between the two bins it falls between.
 */
export function sharpnessInJs(text: TextPixels, degrees: number): { across: number; along: number } {
  const radians = (degrees * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  const { xs, ys, reach, across, along } = text;
  across.fill(0);
  along.fill(0);
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    const y = ys[i]!;
    splat(across, y * cos - x * sin + reach);
    splat(along, x * cos + y * sin + reach);
  }
  return { across: stepEnergy(across), along: stepEnergy(along) };
}

/** Shares a point at `position` between the two bins it falls between; positive (see TextPixels.reach), so truncating floors it. */
function splat(bins: Float64Array, position: number): void {
  const low = position | 0;
  const share = position - low;
  bins[low]! += 1 - share;
  bins[low + 1]! += share;
}

/** The energy of a profile's steps. */
function stepEnergy(bins: Float64Array): number {
  let energy = 0;
  for (let i = 1; i < bins.length; i++) energy += (bins[i]! - bins[i - 1]!) ** 2;
  return energy;
}
