/**
 * Text detection with PP-OCR's DB model: the page, scaled so its longest side is at most
 * `maxSide` (both sides multiples of 32), normalised as the model was trained (BGR, ImageNet mean
 * and deviation), gives a map of the probability that each pixel is text. Pixels above the
 * threshold form regions; each region's rotated minimum-area rectangle, kept when the mean
 * probability inside it reaches the box score, is unclipped and scaled back to the page.
 */
import type { Point, Quad } from '../plane.js';
import { lineQuad, minAreaRect, unclip, type RotatedRect } from './geometry.js';
import { detectorView, type RgbImage } from './image.js';

export interface DetectionSettings {
  /** Longest side the page is scaled to for detection (a multiple of 32). */
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
const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

export interface DetectionInput {
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

const roundTo32 = (value: number) => Math.max(32, Math.round(value / 32) * 32);

/** The page scaled for the detector, as a 1×3×H×W tensor in BGR order. */
export async function detectionInput(image: RgbImage, maxSide: number): Promise<DetectionInput> {
  const scale = Math.min(1, maxSide / Math.max(image.width, image.height));
  const width = roundTo32(image.width * scale);
  const height = roundTo32(image.height * scale);
  const resized = await detectorView(image, width, height);
  const plane = width * height;
  const tensor = new Float32Array(3 * plane);
  const { data } = resized;
  for (let c = 0; c < 3; c++) {
    // BGR: channel 0 of the tensor is the blue byte.
    const source = 2 - c;
    const scale = 1 / (255 * STD[c]!);
    const shift = MEAN[c]! / STD[c]!;
    for (let i = 0; i < plane; i++) tensor[c * plane + i] = data[i * 3 + source]! * scale - shift;
  }
  return { tensor, width, height, scaleX: image.width / width, scaleY: image.height / height };
}

/** Regions of the probability map, as text-line quads in page pixels, top to bottom. */
export function textRegions(probability: Float32Array, input: DetectionInput, settings: DetectionSettings): TextRegion[] {
  const { width, height } = input;
  const { threshold } = settings;
  const seen = new Uint8Array(width * height);
  const stack = new Int32Array(width * height);
  // Each row's leftmost and rightmost pixel of the region being filled: their corners bound it.
  const rowStart = new Int32Array(height).fill(width);
  const rowEnd = new Int32Array(height).fill(-1);
  const regions: TextRegion[] = [];
  for (let start = 0; start < seen.length; start++) {
    if (seen[start] || probability[start]! <= threshold) continue;
    seen[start] = 1;
    stack[0] = start;
    let top = 1;
    let sum = 0;
    let count = 0;
    let firstRow = height;
    let lastRow = -1;
    while (top > 0) {
      const index = stack[--top]!;
      const y = (index / width) | 0;
      const x = index - y * width;
      sum += probability[index]!;
      count++;
      if (x < rowStart[y]!) rowStart[y] = x;
      if (x > rowEnd[y]!) rowEnd[y] = x;
      if (y < firstRow) firstRow = y;
      if (y > lastRow) lastRow = y;
      // The four neighbours, unrolled: an array of them per pixel was most of the fill's time.
      if (x + 1 < width && !seen[index + 1] && probability[index + 1]! > threshold) {
        seen[index + 1] = 1;
        stack[top++] = index + 1;
      }
      if (x > 0 && !seen[index - 1] && probability[index - 1]! > threshold) {
        seen[index - 1] = 1;
        stack[top++] = index - 1;
      }
      if (y + 1 < height && !seen[index + width] && probability[index + width]! > threshold) {
        seen[index + width] = 1;
        stack[top++] = index + width;
      }
      if (y > 0 && !seen[index - width] && probability[index - width]! > threshold) {
        seen[index - width] = 1;
        stack[top++] = index - width;
      }
    }
    const outline: Point[] = [];
    for (let y = firstRow; y <= lastRow; y++) {
      outline.push({ x: rowStart[y]!, y }, { x: rowStart[y]!, y: y + 1 }, { x: rowEnd[y]! + 1, y }, { x: rowEnd[y]! + 1, y: y + 1 });
      rowStart[y] = width;
      rowEnd[y] = -1;
    }
    const region = regionQuad(outline, sum / count, input, settings);
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
