/**
 * The two models that read a detected line: the direction classifier (is the crop upside down?)
 * and the recogniser (CTC over 6,625 classes). Crops are cut straight from the page at the
 * models' input height, sorted by width and run in batches padded to the widest, as PaddleOCR
 * does, so one model call reads several lines.
 */
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { decodeCtc, type DecodedChar } from './ctc.js';
import { endInDoubt, roomierCut, withEndsReadRoomier } from './line-ends.js';
import { doubtfulNarrowGlyphs, STRETCHES, windowsAround, withNarrowGlyphsCounted, type Window, type WindowReading } from './narrow-glyphs.js';
import { BEST_CLASS, BEST_PROBABILITY } from './prepared.js';
import { distance, type Quad } from '../plane.js';
import { quadAlong } from './geometry.js';
import { cutNormalised } from './crop.js';
import type { RgbImage } from './image.js';

/** Builds an input tensor; onnxruntime-node's constructor, passed in so this module stays testable without it. */
export type MakeTensor = (data: Float32Array, dims: number[]) => Tensor;

/** The height both models read lines at. */
export const RECOGNISER_HEIGHT = 48;
const CLASSIFIER_WIDTH = 192;
/**
 * The narrowest a batch is padded to: twice the line height. PaddleOCR pads to its training width,
 * 320, but the recogniser's time grows with the width it reads (measured: 6 ms at 96 px, 17 ms at
 * 320), and short cells (a value, a unit) are most of a form's lines; measured on the fixtures,
 * the same CER and identifiers read as at 320.
 */
const MIN_RECOGNISER_WIDTH = 2 * RECOGNISER_HEIGHT;
/** Above this probability the classifier's "upside down" is a vote for it. */
const FLIP_PROBABILITY = 0.9;

export interface LineReading {
  /** The quad as read: from the corner its first character stands at. */
  quad: Quad;
  chars: DecodedChar[];
  /** Pixels of the crop as the recogniser saw it, per CTC time step. */
  pixelsPerStep: number;
  /** The crop's width at the recogniser's height. */
  cropWidth: number;
}

/**
 * A line to cut from the page: its quad there, and its length over its thickness as it stands on
 * the paper, which the crop keeps (a line photographed at a slant is squashed in its quad).
 */
export interface LineCut {
  quad: Quad;
  aspect: number;
}

const lineLength = (quad: Quad) => distance(quad[0], quad[1]);
const lineThickness = (quad: Quad) => distance(quad[0], quad[3]);

/** A line cut with the proportions of its quad. */
export const cutAlong = (quad: Quad): LineCut => ({ quad, aspect: lineLength(quad) / Math.max(1, lineThickness(quad)) });

const widthAtHeight = (cut: LineCut) => Math.max(1, Math.ceil(RECOGNISER_HEIGHT * cut.aspect));

/** Indices of `cuts`, narrowest first, in batches. */
function batches(cuts: readonly LineCut[], size: number): number[][] {
  const order = cuts.map((_, i) => i).sort((a, b) => widthAtHeight(cuts[a]!) - widthAtHeight(cuts[b]!));
  const result: number[][] = [];
  for (let i = 0; i < order.length; i += size) result.push(order.slice(i, i + size));
  return result;
}

/** Floats of a batch of `lines` crops `width` wide. */
const batchLength = (lines: number, width: number) => lines * 3 * RECOGNISER_HEIGHT * width;

/** The crops of `cuts` as one batch `width` wide, padded with zeros, in the start of `buffer` (a new array when none is given). */
function cropBatch(image: RgbImage, cuts: readonly LineCut[], width: number, makeTensor: MakeTensor, buffer?: Float32Array): Tensor {
  const plane = RECOGNISER_HEIGHT * width;
  const length = batchLength(cuts.length, width);
  const data = buffer?.subarray(0, length) ?? new Float32Array(length);
  cuts.forEach((cut, b) => {
    const cropWidth = Math.min(width, widthAtHeight(cut));
    const offset = b * 3 * plane;
    cutNormalised(image, cut.quad, cropWidth, RECOGNISER_HEIGHT, { out: data, offset, stride: width, planeSize: plane });
    if (cropWidth === width) return;
    for (let row = offset; row < offset + 3 * plane; row += width) data.fill(0, row + cropWidth, row + width);
  });
  return makeTensor(data, [cuts.length, 3, RECOGNISER_HEIGHT, width]);
}

/**
 * Whether most of the page's text (by line length) stands upside down, by the classifier's
 * verdict on its lines. A page's text stands one way: its lines are read all one way round, as
 * most of them stand, so a short line the classifier misjudges (a name in its cell) is read the
 * right way up all the same. Stops before a model call once `signal` aborts.
 */
export function mostlyUpsideDown(session: InferenceSession, image: RgbImage, cuts: readonly LineCut[], batchSize: number, makeTensor: MakeTensor, signal: AbortSignal): Promise<boolean> {
  const buffer = new Float32Array(batchLength(batchSize, CLASSIFIER_WIDTH));
  return upsideDownVote(
    cuts.map((cut) => lineLength(cut.quad)),
    batchSize,
    async (batch) => {
      signal.throwIfAborted();
      const input = cropBatch(image, batch.map((i) => cuts[i]!), CLASSIFIER_WIDTH, makeTensor, buffer);
      const output = await session.run({ [session.inputNames[0]!]: input });
      const scores = output[session.outputNames[0]!]!.data as Float32Array;
      return batch.map((_, b) => scores[b * 2 + 1]!);
    },
  );
}

/**
 * The vote of mostlyUpsideDown, each line weighted by its length: `classify` gives the
 * probability that each line of a batch (indices into `lengths`) is upside down. Lines are put to
 * it longest first, and the vote ends as soon as the lines not yet classified could not change
 * its outcome: a page's long lines settle it, and its many short cells need not be classified.
 */
export async function upsideDownVote(lengths: readonly number[], batchSize: number, classify: (batch: number[]) => Promise<number[]>): Promise<boolean> {
  const half = lengths.reduce((sum, length) => sum + length, 0) / 2;
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[b]! - lengths[a]!);
  let flipped = 0;
  let upright = 0;
  for (let from = 0; from < order.length && flipped <= half && upright < half; from += batchSize) {
    const batch = order.slice(from, from + batchSize);
    const probabilities = await classify(batch);
    batch.forEach((index, b) => {
      if (probabilities[b]! > FLIP_PROBABILITY) flipped += lengths[index]!;
      else upright += lengths[index]!;
    });
  }
  return flipped > half;
}

/** The same line read from its other end: a half turn. */
export const turnedHalf = (quad: Quad): Quad => [quad[2], quad[3], quad[0], quad[1]];

/**
 * Reads each line along its quad, from its first corner; stops before a model call once `signal`
 * aborts. Where CTC may have read too few of a narrow glyph, its line around it is read again
 * stretched (see narrow-glyphs.ts), and a line whose end character is unsure again with more room
 * round it (see line-ends.ts).
 */
export async function readLines(
  recogniser: InferenceSession,
  image: RgbImage,
  upright: readonly LineCut[],
  alphabet: readonly string[],
  batchSize: number,
  makeTensor: MakeTensor,
  signal: AbortSignal,
): Promise<LineReading[]> {
  const read = (cuts: readonly LineCut[]) => readCuts({ recogniser, image, alphabet, batchSize, makeTensor, signal }, cuts);
  const { readings, doubtful } = await read(upright);
  await countNarrowGlyphsAgain(read, upright, readings, doubtful);
  await readUnsureEndsRoomier(read, upright, readings);
  return readings;
}

type ReadCuts = (cuts: readonly LineCut[]) => Promise<{ readings: LineReading[] }>;

/**
 * The part of `cut` between pixels `from` and `to` of its crop (`cropWidth` long), its crop
 * `stretch` times longer than its proportions make it.
 */
export function windowOf(cut: LineCut, { from, to }: Window, cropWidth: number, stretch: number): LineCut {
  return { quad: quadAlong(cut.quad, from / cropWidth, to / cropWidth), aspect: ((cut.aspect * (to - from)) / cropWidth) * stretch };
}

/** Each of `readings` with narrow glyphs in doubt (by line, see readCuts) takes their count from windows of its line around them read stretched. */
async function countNarrowGlyphsAgain(read: ReadCuts, upright: readonly LineCut[], readings: LineReading[], doubtful: ReadonlyMap<number, number[]>): Promise<void> {
  // A line's crop is RECOGNISER_HEIGHT thick.
  const windows = [...doubtful].flatMap(([line, glyphs]) => windowsAround(readings[line]!, glyphs, RECOGNISER_HEIGHT).map((window) => ({ line, window })));
  if (windows.length === 0) return;
  const stretched = new Map<number, WindowReading[]>();
  for (const stretch of STRETCHES) {
    const cuts = windows.map(({ line, window }) => windowOf(upright[line]!, window, readings[line]!.cropWidth, stretch));
    (await read(cuts)).readings.forEach((reading, k) => {
      const { line, window } = windows[k]!;
      stretched.set(line, [...(stretched.get(line) ?? []), { ...reading, window }]);
    });
  }
  for (const [line, glyphs] of doubtful) readings[line] = { ...readings[line]!, chars: withNarrowGlyphsCounted(readings[line]!, glyphs, stretched.get(line) ?? []) };
}

/** Each of `readings` whose end character is unsure takes its end characters from its line read with more room, where surer (see withEndsReadRoomier). */
async function readUnsureEndsRoomier(read: ReadCuts, upright: readonly LineCut[], readings: LineReading[]): Promise<void> {
  const lines = upright.flatMap((_, i) => (endInDoubt(readings[i]!.chars) ? [i] : []));
  if (lines.length === 0) return;
  const roomier = (await read(lines.map((i) => roomierCut(upright[i]!.quad, upright[i]!.aspect)))).readings;
  lines.forEach((i, k) => {
    readings[i] = { ...readings[i]!, chars: withEndsReadRoomier(readings[i]!.chars, roomier[k]!.chars) };
  });
}

interface LineReader {
  recogniser: InferenceSession;
  image: RgbImage;
  alphabet: readonly string[];
  batchSize: number;
  makeTensor: MakeTensor;
  signal: AbortSignal;
}

/** Each line's reading, and by line the indices of its characters that are narrow glyphs in doubt (see doubtfulNarrowGlyphs). */
async function readCuts(
  { recogniser, image, alphabet, batchSize, makeTensor, signal }: LineReader,
  upright: readonly LineCut[],
): Promise<{ readings: LineReading[]; doubtful: Map<number, number[]> }> {
  const readings = new Array<LineReading>(upright.length);
  const doubtful = new Map<number, number[]>();
  const planned = batches(upright, batchSize).map((batch) => ({ batch, width: Math.max(MIN_RECOGNISER_WIDTH, ...batch.map((i) => widthAtHeight(upright[i]!))) }));
  // One buffer for every batch in turn: an array per batch (a line 1000 px long is 576 KB of
  // floats) made most of a page's allocations, and collecting them a sizeable share of its time.
  const buffer = new Float32Array(Math.max(0, ...planned.map(({ batch, width }) => batchLength(batch.length, width))));
  for (const { batch, width } of planned) {
    signal.throwIfAborted();
    const batchCuts = batch.map((i) => upright[i]!);
    const output = await recogniser.run({ [recogniser.inputNames[0]!]: cropBatch(image, batchCuts, width, makeTensor, buffer) }, [BEST_CLASS, BEST_PROBABILITY]);
    const bestClass = output[BEST_CLASS]!;
    const steps = bestClass.dims[1] ?? 0;
    const classes = bestClass.data as BigInt64Array;
    const probabilities = output[BEST_PROBABILITY]!.data as Float32Array;
    batch.forEach((index, b) => {
      const cut = upright[index]!;
      const [best, probability] = [classes.subarray(b * steps, (b + 1) * steps), probabilities.subarray(b * steps, (b + 1) * steps)];
      const chars = decodeCtc(best, probability, alphabet);
      readings[index] = { quad: cut.quad, chars, pixelsPerStep: width / steps, cropWidth: Math.min(width, widthAtHeight(cut)) };
      const inDoubt = doubtfulNarrowGlyphs(chars, best, probability);
      if (inDoubt.length) doubtful.set(index, inDoubt);
    });
  }
  return { readings, doubtful };
}

