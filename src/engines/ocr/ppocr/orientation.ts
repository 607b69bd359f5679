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
import { sharpness, textPixels, type Sharpness } from './skew.js';

/** A page skewed less than this is read as it lies: the detector and recogniser take small skews in their stride. */
const MIN_SKEW_DEGREES = 2;
/** Text pixels needed before a page's skew means anything (a photo without writing has none). */
const MIN_TEXT_PIXELS = 400;
/** Directions tried: every degree of a quarter turn, then tenths around the best. */
const COARSE_STEP = 1;
const FINE_STEP = 0.1;
/** The best direction must beat the page as it lies by this factor to be believed (noise scores alike everywhere). */
const MIN_GAIN = 1.15;

/** A direction tried, and how sharply the text piles up in it. */
interface Tried extends Sharpness {
  degrees: number;
  score: number;
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
  if (text.count < MIN_TEXT_PIXELS) return 0;
  const tried = (directions: number[]): Tried[] =>
    sharpness(text, directions).map(({ across, along }, i) => ({ degrees: directions[i]!, across, along, score: across + along }));
  // The page as it lies first: the others must beat it.
  const coarse = [0];
  for (let degrees = -45 + COARSE_STEP; degrees < 45; degrees += COARSE_STEP) if (degrees !== 0) coarse.push(degrees);
  const [asItLies, ...turned] = tried(coarse) as [Tried, ...Tried[]];
  const best = sharpest(asItLies, turned);
  // Around level, every direction the fine search could find is a skew under MIN_SKEW_DEGREES.
  const fine: number[] = [];
  if (best.degrees !== 0) for (let degrees = best.degrees - COARSE_STEP; degrees <= best.degrees + COARSE_STEP; degrees += FINE_STEP) fine.push(degrees);
  const finest = sharpest(best, tried(fine));
  const skewed = Math.abs(finest.degrees) >= MIN_SKEW_DEGREES && finest.score >= MIN_GAIN * asItLies.score;
  const lines = skewed ? finest.degrees : 0;
  // Lines pile up across their own direction (a band per line); across the other, only where
  // their characters happen to align.
  const { across, along } = skewed ? finest : asItLies;
  const plumb = along > across;
  if (!skewed && !plumb) return 0;
  // Of the two turns that level the lines, the smaller: whether the page then stands upright or
  // upside down, the read lines say.
  const turn = -(plumb ? lines + 90 : lines);
  return turn <= -90 ? turn + 180 : turn > 90 ? turn - 180 : turn;
}

/** The first of `tried` that scores higher than `best` and every one before it, or `best`. */
function sharpest(best: Tried, tried: readonly Tried[]): Tried {
  for (const candidate of tried) if (candidate.score > best.score) best = candidate;
  return best;
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
