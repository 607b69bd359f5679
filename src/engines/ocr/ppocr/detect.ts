/**
 * Text detection with PP-OCR's DB model: the page, scaled so its longest side is at most
 * `maxSide` (both sides multiples of 32; larger when its print is too small for that, see
 * plannedSide, or its text comes out too thin there, see closerSide), normalised as the model
 * was trained (BGR, ImageNet mean and deviation), gives a map of the probability that each pixel is text. Pixels above the
 * threshold form regions; each region's rotated minimum-area rectangle, kept when the mean
 * probability inside it reaches the box score, is unclipped and scaled back to the page.
 */
import type { Box } from '../../types.js';
import { boundingBox, distance, insideQuad, pointInQuad, type Point, type Quad } from '../plane.js';
import { mapRegions } from './map-regions.js';
import { lineQuad, minAreaRect, unclip, type RotatedRect } from './geometry.js';
import { detectorView, giveBackView, type RgbImage } from './image.js';
import { writeLitNormalised } from './lit-normalised.js';
import { Spares } from './spares.js';

export interface DetectionSettings {
  /** Longest side the page is scaled to for detection (a multiple of 32), unless its text comes out too thin there (see closerSide). */
  maxSide: number;
  /** Probability above which a pixel counts as text. */
  threshold: number;
  /** Mean probability a region needs to be kept. */
  boxScore: number;
  /** How far a region is grown back (DB's unclip ratio). */
  unclipRatio: number;
}

export const DETECTION_DEFAULTS: DetectionSettings = { maxSide: 960, threshold: 0.3, boxScore: 0.6, unclipRatio: 1.5 };

/** Each end of a line gets this share of its thickness as margin (see withLineEndMargin). */
const LINE_END_MARGIN = 0.2;
/** Regions thinner than this (in map pixels) are noise. */
const MIN_REGION_SIDE = 3;

export interface DetectionInput {
  /** Lent (see Spares): once the detector has read it, given back with giveBackTensor, and no longer read. */
  tensor: Float32Array;
  width: number;
  height: number;
  /** Page pixels per map pixel, along x and y. */
  scaleX: number;
  scaleY: number;
}

export interface TextRegion {
  quad: Quad;
  score: number;
}

/**
 * The thickness (across the line, in detector pixels, as unclipped) the median line needs for the
 * detector to keep every line whole. Thinner, as small print on a full A4 page scaled to 960
 * px comes out (about 15), lines a point apart touch and thin grey strokes fall under the
 * threshold: a line is cut short, a paragraph's lines run into each other, and the recogniser
 * reads what the crop holds of its neighbours.
 */
export const MIN_LINE_THICKNESS = 19;
/** A page is detected again at most this many times the side it was first detected at (the detector's time grows with the square). */
const MAX_CLOSER = 2;

/**
 * The longest side to detect the page at again, so that its median line (of `quads`, found at
 * `input`) is MIN_LINE_THICKNESS thick in the map; undefined when it already is, or when the page
 * was detected at its own size (`pageSide`, its longest side), which is never enlarged.
 */
export function closerSide(quads: readonly Quad[], input: DetectionInput, pageSide: number): number | undefined {
  const scale = Math.max(input.scaleX, input.scaleY);
  if (quads.length === 0 || scale <= 1) return undefined;
  const thickness = quads.map((quad) => Math.min(distance(quad[0], quad[1]), distance(quad[0], quad[3])) / scale).sort((a, b) => a - b);
  const median = thickness[Math.floor(thickness.length / 2)]!;
  if (median >= MIN_LINE_THICKNESS) return undefined;
  const detectedSide = Math.max(input.width, input.height);
  return Math.round(Math.min(pageSide, MAX_CLOSER * detectedSide, (detectedSide * MIN_LINE_THICKNESS) / median));
}

/**
 * The detector's line thickness (unclipped, in page pixels) per line height as printLineHeight
 * measures it. It is higher for Latin print than for Chinese (a narrow strip of a Latin line
 * often crosses only its lower-case letters); the Chinese end is taken, so that no page is
 * detected at a side smaller than its own lines ask for once detected at the side limit (see
 * closerSide): smaller sides read worse, larger ones cost only time.
 */
const THICKNESS_PER_PRINT_HEIGHT = 1.5;

/**
 * The longest side to detect the page at once, from the height of its lines of print
 * (`printHeight`, in page pixels, see print-height.ts) before it is detected: the side at which
 * its lines come out MIN_LINE_THICKNESS thick, up to its own size (`pageSide`) and MAX_CLOSER
 * times `side`, the side limit. Undefined where the print is unknown or the side limit serves.
 */
export function plannedSide(printHeight: number | undefined, pageSide: number, side: number): number | undefined {
  if (printHeight === undefined) return undefined;
  const wanted = (pageSide * MIN_LINE_THICKNESS) / (THICKNESS_PER_PRINT_HEIGHT * printHeight);
  const planned = Math.round(Math.min(pageSide, MAX_CLOSER * side, wanted));
  return planned > side ? planned : undefined;
}

/** A line counts as found again when at least this share of it lies inside the lines detected closer. */
const FOUND_AGAIN = 0.5;
/** Points a line is sampled at, along it and across it, to measure how much of it lies inside other lines. */
const SAMPLES_ALONG = 20;
const SAMPLES_ACROSS = 5;

/** A line no longer than this many times its thickness is a lone glyph or mark ("%", an arrow). */
const LONE_GLYPH_LENGTH = 2;

/**
 * The lines to read of a page detected first (`first`) and then closer (`closer`), both in page
 * pixels: the closer lines, with every lone glyph first found that they do not find again (a
 * thin mark the closer look can miss); undefined when a longer line first found is not found
 * again. Whole lines split in two or made longer are found again. A page blurred past reading
 * comes out as thick smudges that detected closer fall apart into a few specks the recogniser
 * reads nothing from, and a page whose found text reads as nothing passes as blank.
 */
export function closerLines(first: readonly Quad[], closer: readonly Quad[]): Quad[] | undefined {
  const lost = linesLost(first, closer);
  return lost.every(isLoneGlyph) ? [...closer, ...lost] : undefined;
}

/** The lines of `first` that `later` (both in page pixels) do not find again: less than half of each lies inside them. */
export function linesLost<Line extends Quad>(first: readonly Line[], later: readonly Quad[]): Line[] {
  const around = later.map((quad) => ({ quad, box: boundingBox(quad) }));
  return first.filter((line) => shareInside(line, around) < FOUND_AGAIN);
}

function isLoneGlyph(quad: Quad): boolean {
  const [along, across] = [distance(quad[0], quad[1]), distance(quad[0], quad[3])];
  return Math.max(along, across) <= LONE_GLYPH_LENGTH * Math.min(along, across);
}

/** How far outside its box a point may lie and still count as on a quad's edge (insideQuad's tolerance). */
const EDGE = 1e-6;

/** The share of `line` that lies inside any of `lines` (each with its box, which a point must lie in first), as sampled on a grid over it. */
function shareInside(line: Quad, lines: ReadonlyArray<{ quad: Quad; box: Box }>): number {
  let inside = 0;
  for (let i = 0; i < SAMPLES_ALONG; i++) {
    for (let j = 0; j < SAMPLES_ACROSS; j++) {
      const { x, y } = pointInQuad(line, (i + 0.5) / SAMPLES_ALONG, (j + 0.5) / SAMPLES_ACROSS);
      if (lines.some(({ quad, box }) => x >= box.x0 - EDGE && x <= box.x1 + EDGE && y >= box.y0 - EDGE && y <= box.y1 + EDGE && insideQuad({ x, y }, quad))) inside++;
    }
  }
  return inside / (SAMPLES_ALONG * SAMPLES_ACROSS);
}

const roundTo32 = (value: number) => Math.max(32, Math.round(value / 32) * 32);

/** The page scaled for the detector, as a 1×3×H×W tensor in BGR order: each despeckled pixel evenly lit and normalised (see writeLitNormalised). */
export async function detectionInput(image: RgbImage, maxSide: number): Promise<DetectionInput> {
  const scale = Math.min(1, maxSide / Math.max(image.width, image.height));
  const width = roundTo32(image.width * scale);
  const height = roundTo32(image.height * scale);
  const { despeckled, brightness } = await detectorView(image, width, height);
  const tensor = spareTensors.lend(3 * width * height);
  writeLitNormalised(despeckled.data, brightness, tensor);
  giveBackView(despeckled);
  return { tensor, width, height, scaleX: image.width / width, scaleY: image.height / height };
}

/** Detector inputs the detector has read, to be written over by the next (see Spares). */
const spareTensors = new Spares(Float32Array);

/** Takes back the tensor of `input` once the detector has read it, for the next input to be written over. */
export function giveBackTensor(input: DetectionInput): void {
  spareTensors.giveBack(input.tensor);
}

/** Regions of the probability map, as text-line quads in page pixels, top to bottom. */
export function textRegions(probability: Float32Array, input: DetectionInput, settings: DetectionSettings): TextRegion[] {
  const regions: TextRegion[] = [];
  for (const { outline, meanProbability } of mapRegions(probability, input.width, input.height, settings.threshold)) {
    const region = regionQuad(outline, meanProbability, input, settings);
    if (region) regions.push(region);
  }
  return regions.sort((a, b) => centreY(a.quad) - centreY(b.quad) || a.quad[0].x - b.quad[0].x);
}

const centreY = (quad: Quad) => (quad[0].y + quad[1].y + quad[2].y + quad[3].y) / 4;

function regionQuad(boundary: Point[], meanProbability: number, input: DetectionInput, settings: DetectionSettings): TextRegion | undefined {
  if (meanProbability < settings.boxScore) return undefined;
  const rect = minAreaRect(boundary);
  if (Math.min(rect.width, rect.height) < MIN_REGION_SIDE) return undefined;
  const grown = withLineEndMargin(unclip(rect, settings.unclipRatio));
  const quad = lineQuad(grown).map((p) => ({
    x: clamp(p.x * input.scaleX, 0, input.width * input.scaleX),
    y: clamp(p.y * input.scaleY, 0, input.height * input.scaleY),
  })) as Quad;
  return { quad, score: meanProbability };
}

/**
 * The line lengthened at both ends by a share of its thickness: the recogniser needs room after a
 * line's last character (measured: without it, the last digit of a number was lost on a photo
 * taken at an angle).
 */
function withLineEndMargin(rect: RotatedRect): RotatedRect {
  const margin = LINE_END_MARGIN * Math.min(rect.width, rect.height);
  return rect.width >= rect.height ? { ...rect, width: rect.width + 2 * margin } : { ...rect, height: rect.height + 2 * margin };
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));
