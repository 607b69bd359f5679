/**
 * How a page lies: the skew that straightens its lines (any angle), then the quarter turn that
 * makes the straightened page upright (from the direction the read lines run in, once the
 * classifier has turned each the right way up).
 *
 * The skew cannot come from the detector's lines: on text at 50° it merges neighbouring lines
 * into blobs whose rectangles stand upright (on a photo turned about 55°, 110 of its 148 regions
 * lay at 90°), which is why the page is straightened first. It comes from the detector's map of
 * text pixels instead, which marks text and nothing else (not the desk, the page's edge, a
 * shadow): text pixels projected across lines pile up in sharp peaks (the lines) and gaps (the
 * spacing) only when projected along the lines' own direction (Postl's projection profiles).
 * Directions are tried modulo a quarter turn, scored along both axes; the axis the lines run on
 * is the one across which they pile up most. Measured on real photos of a form turned and tilted every way, and on the same
 * photos turned by sharp: within about 1° of the turn that levels them.
 */
import type { Box } from '../../types.js';
import { boundingBox, turnPoint, type Point, type Quad, type QuarterTurn, type Size } from '../plane.js';
import type { DetectionInput } from './detect.js';

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
interface TextPixels {
  xs: Float64Array;
  ys: Float64Array;
  /** Every projection lies within this of the centre. */
  reach: number;
  /** The bins of the two profiles, written over by each direction tried (see sharpness) rather than a pair for each. */
  across: Float64Array;
  along: Float64Array;
}

/**
 * Degrees clockwise (−90 to 90) that turn the page's lines level, from the detector's
 * probability map of it (upright or upside down: that is the quarter turn's business, once the
 * lines are read); 0 when it lies level within MIN_SKEW_DEGREES, or shows no lines. Lines read
 * plumb are turned level too: the detector reads a photo's lines far better level (on a photo
 * straightened plumb it found 4 words to read beside the data, against 119 level).
 */
export function straighteningTurn(probability: Float32Array, input: DetectionInput, threshold: number): number {
  const text = textPixels(probability, input, threshold);
  if (text.xs.length < MIN_TEXT_PIXELS) return 0;
  const score = (degrees: number) => {
    const { across, along } = sharpness(text, degrees);
    return across + along;
  };
  const asItLies = sharpness(text, 0);
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
  const { across, along } = skewed ? sharpness(text, lines) : asItLies;
  const plumb = along > across;
  if (!skewed && !plumb) return 0;
  // Of the two turns that level the lines, the smaller: whether the page then stands upright or
  // upside down, the read lines say.
  const turn = -(plumb ? lines + 90 : lines);
  return turn <= -90 ? turn + 180 : turn > 90 ? turn - 180 : turn;
}

function textPixels(probability: Float32Array, input: DetectionInput, threshold: number): TextPixels {
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
function sharpness(text: TextPixels, degrees: number): { across: number; along: number } {
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

function stepEnergy(bins: Float64Array): number {
  let energy = 0;
  for (let i = 1; i < bins.length; i++) energy += (bins[i]! - bins[i - 1]!) ** 2;
  return energy;
}

/**
 * The clockwise quarter turn that makes the page upright: text that runs down the image was
 * turned a quarter clockwise (turn it 270 more), text that runs up it a quarter the other way,
 * text that runs right to left is upside down. Each line (its quad as read, from its first
 * character's corner) votes with the characters it holds.
 */
export function pageRotation(lines: ReadonlyArray<{ quad: Quad; chars: number }>): QuarterTurn {
  const votes = new Map<QuarterTurn, number>();
  for (const { quad, chars } of lines) {
    const direction = runDirection(quad[0], quad[1]);
    votes.set(direction, (votes.get(direction) ?? 0) + chars);
  }
  let best: QuarterTurn = 0;
  for (const [rotation, count] of votes) if (count > (votes.get(best) ?? 0)) best = rotation;
  return best;
}

function runDirection(from: Point, to: Point): QuarterTurn {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  if (Math.abs(dx) >= Math.abs(dy)) return dx >= 0 ? 0 : 180;
  return dy > 0 ? 270 : 90;
}

/** Room kept around a page's text when it is detected turned, as a share of the text's longer side. */
const TEXT_ROOM = 0.05;

/** A page as sent and turned: both sizes without the white margin each was read with. */
export interface TurnedFrame {
  source: Size;
  canvas: Size;
  margin: number;
}

/**
 * Where the detector's map shows text: each row's first and last text pixel, as points of the
 * page the map was made of. Their hull is the text's, so they bound it however it is turned.
 */
export function textOutline(probability: Float32Array, input: DetectionInput, threshold: number): Point[] {
  const { width, height, scaleX, scaleY } = input;
  const outline: Point[] = [];
  for (let y = 0; y < height; y++) {
    let first = -1;
    let last = -1;
    for (let x = 0, i = y * width; x < width; x++, i++) {
      if (probability[i]! <= threshold) continue;
      if (first < 0) first = x;
      last = x;
    }
    if (first < 0) continue;
    for (const [x, dy] of [[first, 0], [first, 1], [last + 1, 0], [last + 1, 1]] as const) outline.push({ x: x * scaleX, y: (y + dy) * scaleY });
  }
  return outline;
}

/**
 * The part of the page turned `turn` degrees (its image, with its margin) that holds the text
 * whose outline in the page as sent (with its margin) is `text`, with room all round, in whole
 * pixels within the image; undefined when no text was seen. A page turned by an angle lies on a
 * canvas grown to hold it, and a photo's page on a desk: the detector's side limit is spent on
 * the text alone, so it is detected at the scale it has on the page, whatever lies around it (a
 * photo turned 30° on a desk lost its 8-digit outpatient number at the canvas's limit, and read
 * it at the text's). The outline is the detector's map, not its lines: at 45° it merged or lost
 * lines whose text its map still showed.
 */
export function textRegion(text: readonly Point[], turn: number, { source, canvas, margin }: TurnedFrame): Box | undefined {
  if (text.length === 0) return undefined;
  const onCanvas = text.map((p) => turnPoint({ x: p.x - margin, y: p.y - margin }, turn, source, canvas));
  const box = boundingBox(onCanvas);
  const room = TEXT_ROOM * Math.max(box.x1 - box.x0, box.y1 - box.y0) + margin;
  return {
    x0: Math.max(0, Math.floor(box.x0 - room + margin)),
    y0: Math.max(0, Math.floor(box.y0 - room + margin)),
    x1: Math.min(canvas.width + 2 * margin, Math.ceil(box.x1 + room + margin)),
    y1: Math.min(canvas.height + 2 * margin, Math.ceil(box.y1 + room + margin)),
  };
}
