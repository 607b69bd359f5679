import { describe, expect, it } from 'vitest';
import type { DetectionInput } from '../../../../src/engines/ocr/ppocr/detect.js';
import { straighteningTurn } from '../../../../src/engines/ocr/ppocr/orientation.js';
import { sharpness, textPixels } from '../../../../src/engines/ocr/ppocr/skew.js';
import { sharpnessInJs, straighteningTurnInJs, textPixelsInJs } from './skew-reference.js';

/** A fixed pseudo-random number in [0, 1) for `i` and `salt`: noise that needs no generator's state. */
function noise(i: number, salt: number): number {
  let h = Math.imul(i ^ Math.imul(salt, 0x9e3779b9), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 2 ** 32;
}

interface MapShape {
  width: number;
  height: number;
  /** Map pixels to page pixels. */
  scale?: number;
  /** The lines' direction, clockwise; none for a map of speckle alone. */
  degrees?: number;
  /** The share of the other pixels lit at random. */
  speckle?: number;
  /** The share of pixels that are NaN. */
  nan?: number;
  salt: number;
}

/**
 * A detector's map: lines 8 px thick every 24 px, broken into words, at `degrees` about the
 * centre, and speckle. Its lit pixels take values about the thresholds tried (0.3 and 0.5), and
 * each of them exactly (0.5, and 0.3 as a float holds it).
 */
function mapOf({ width, height, scale = 1, degrees, speckle = 0, nan = 0, salt }: MapShape): { probability: Float32Array; input: DetectionInput } {
  const probability = new Float32Array(width * height);
  const levels = [0.2, 0.3, 0.31, 0.5, 0.5, 0.7, 0.9, 1];
  const r = ((degrees ?? 0) * Math.PI) / 180;
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i++) {
      const [dx, dy] = [x - width / 2, y - height / 2];
      const along = dx * Math.cos(r) + dy * Math.sin(r);
      const across = -dx * Math.sin(r) + dy * Math.cos(r);
      const inLine = degrees !== undefined && ((across % 24) + 24) % 24 < 8 && ((along % 60) + 60) % 60 < 48 && Math.abs(along) < width / 3 && Math.abs(across) < height / 3;
      if (inLine || noise(i, salt) < speckle) probability[i] = levels[Math.floor(noise(i, salt + 1) * levels.length)]!;
      if (noise(i, salt + 2) < nan) probability[i] = NaN;
    }
  }
  return { probability, input: { tensor: new Float32Array(0), width, height, scaleX: scale, scaleY: scale } };
}

const MAPS: MapShape[] = [
  ...[-80, -33, -7.5, 0, 3.3, 12.5, 41, 65, 88].map((degrees, salt) => ({ width: 640, height: 480, degrees, speckle: 0.01, salt })),
  { width: 480, height: 672, scale: 2.6, degrees: 24, speckle: 0.002, salt: 20 },
  // Dense enough that only the first of every few text pixels is kept.
  { width: 960, height: 1344, scale: 1.3, degrees: -2.5, speckle: 0.05, salt: 21 },
  // Sides whose pixels are no multiple of four (the last few floats taken one by one).
  { width: 333, height: 251, scale: 1.7, degrees: 51, speckle: 0.03, salt: 22 },
  { width: 37, height: 23, scale: 17, speckle: 0.7, salt: 23 },
  { width: 500, height: 500, speckle: 0.3, salt: 24 },
  { width: 640, height: 480, degrees: 16, speckle: 0.01, nan: 0.003, salt: 25 },
  // Too little text to tell a skew.
  { width: 640, height: 480, speckle: 0.0005, salt: 26 },
];

const bits = (values: number[]) => Buffer.from(new Float64Array(values).buffer);

describe('the skew search in WebAssembly', () => {
  it('turns every map exactly as the JavaScript reference does', () => {
    for (const shape of MAPS) {
      const { probability, input } = mapOf(shape);
      for (const threshold of [0.3, 0.5]) expect(Object.is(straighteningTurn(probability, input, threshold), straighteningTurnInJs(probability, input, threshold)), JSON.stringify({ shape, threshold })).toBe(true);
    }
  });

  it('samples the same points and measures the same sharpness, to the bit, in any direction', () => {
    const directions = Array.from({ length: 37 }, (_, i) => 180 * noise(i, 30) - 90).concat([0, 45, -45, 90]);
    for (const shape of MAPS) {
      const { probability, input } = mapOf(shape);
      for (const threshold of [0.3, 0.5]) {
        const text = textPixels(probability, input, threshold);
        const reference = textPixelsInJs(probability, input, threshold);
        expect(text.count).toBe(reference.xs.length);
        const measured = sharpness(text, directions).flatMap(({ across, along }) => [across, along]);
        const expected = directions.flatMap((degrees) => Object.values(sharpnessInJs(reference, degrees)));
        expect(bits(measured).equals(bits(expected)), JSON.stringify({ shape, threshold })).toBe(true);
      }
    }
  });

  it('profiles no more directions at once than it has room for', () => {
    const { probability, input } = mapOf({ width: 640, height: 480, degrees: 5, salt: 40 });
    expect(() => sharpness(textPixels(probability, input, 0.3), Array.from({ length: 129 }, (_, i) => i))).toThrow(RangeError);
  });
});
