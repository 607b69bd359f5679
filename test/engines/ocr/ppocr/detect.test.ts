import { describe, expect, it } from 'vitest';
import { DETECTION_DEFAULTS, textRegions, type DetectionInput } from '../../../../src/engines/ocr/ppocr/detect.js';

const WIDTH = 64;
const HEIGHT = 40;

/** A probability map of WIDTH × HEIGHT with `fill(x, y)` per pixel, read at twice the scale. */
function map(fill: (x: number, y: number) => number): { probability: Float32Array; input: DetectionInput } {
  const probability = new Float32Array(WIDTH * HEIGHT);
  for (let y = 0; y < HEIGHT; y++) for (let x = 0; x < WIDTH; x++) probability[y * WIDTH + x] = fill(x, y);
  return { probability, input: { tensor: new Float32Array(), width: WIDTH, height: HEIGHT, scaleX: 2, scaleY: 2 } };
}

const inside = (x: number, y: number, x0: number, y0: number, x1: number, y1: number) => x >= x0 && x < x1 && y >= y0 && y < y1;

describe('text regions of the probability map', () => {
  it('finds each line as a quad in page pixels, top to bottom, and drops faint regions and specks', () => {
    const { probability, input } = map((x, y) => {
      if (inside(x, y, 30, 4, 60, 10)) return 0.9; // the upper line, on the right
      if (inside(x, y, 4, 20, 50, 26)) return 0.8; // the lower line
      if (inside(x, y, 4, 4, 20, 10)) return 0.4; // above the threshold, below the box score
      if (inside(x, y, 2, 34, 4, 36)) return 0.95; // a speck two pixels across
      return 0.05;
    });
    const regions = textRegions(probability, input, DETECTION_DEFAULTS);
    expect(regions.map((r) => r.score)).toEqual([expect.closeTo(0.9, 5), expect.closeTo(0.8, 5)]);
    const [upper, lower] = regions.map((r) => r.quad);
    // Unclipped around the 30 × 6 region (x 30..60, y 4..10), lengthened at both ends, then ×2.
    expect(upper![0].x).toBeLessThan(60);
    expect(upper![1].x).toBeGreaterThan(120);
    expect(upper![0].y).toBeLessThan(8);
    expect(upper![3].y).toBeGreaterThan(20);
    expect(lower![0].y).toBeGreaterThan(upper![3].y);
  });

  it('gives a tilted line a tilted quad', () => {
    const { probability, input } = map((x, y) => (Math.abs(y - (8 + x * 0.4)) < 2.5 && x >= 5 && x < 55 ? 0.9 : 0));
    const [region] = textRegions(probability, input, DETECTION_DEFAULTS);
    const [topLeft, topRight] = region!.quad;
    expect((topRight.y - topLeft.y) / (topRight.x - topLeft.x)).toBeCloseTo(0.4, 1);
  });
});
