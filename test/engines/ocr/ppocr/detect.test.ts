import { describe, expect, it } from 'vitest';
import {
  closerLines,
  closerSide,
  DETECTION_DEFAULTS,
  detectionInput,
  giveBackTensor,
  MIN_LINE_THICKNESS,
  plannedSide,
  textRegions,
  type DetectionInput,
} from '../../../../src/engines/ocr/ppocr/detect.js';
import { quadOf, type Quad } from '../../../../src/engines/ocr/plane.js';

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

describe("the detector's input tensor", () => {
  /** A page of pseudo-random pixels, `seed` apart. */
  const page = (seed: number) => ({ data: Uint8Array.from({ length: 90 * 70 * 3 }, (_, i) => ((i + seed) * 2654435761) >>> 24), width: 90, height: 70 });

  it('is written over one given back, as it would be in a fresh one, and never lent twice at once', async () => {
    const fresh = Float32Array.from((await detectionInput(page(1), 64)).tensor);
    const held = await detectionInput(page(2), 96);
    const other = await detectionInput(page(2), 96);
    expect(other.tensor.buffer).not.toBe(held.tensor.buffer);
    giveBackTensor(held);
    giveBackTensor(held);
    const again = await detectionInput(page(1), 64);
    expect(again.tensor.buffer).toBe(held.tensor.buffer);
    expect(again.tensor).toEqual(fresh);
    expect((await detectionInput(page(1), 64)).tensor.buffer).not.toBe(held.tensor.buffer);
  });
});

describe('the side a page is detected again at when its text comes out thin', () => {
  /** A line `thickness` page pixels high and 400 long, its top at `y`. */
  const line = (y: number, thickness: number): Quad => quadOf({ x0: 10, y0: y, x1: 410, y1: y + thickness });
  /** A 1240 × 1760 page detected at half its size: 620 × 880, two page pixels per map pixel. */
  const half: DetectionInput = { tensor: new Float32Array(), width: 620, height: 880, scaleX: 2, scaleY: 2 };
  const PAGE_SIDE = 1760;

  it('enlarges the page so that its median line is MIN_LINE_THICKNESS thick in the map', () => {
    // Lines 20 page pixels thick are 10 map pixels: the page is detected again at 19/10 of 880.
    const quads = [line(0, 20), line(40, 20), line(80, 60)];
    expect(closerSide(quads, half, PAGE_SIDE)).toBe(Math.round((880 * MIN_LINE_THICKNESS) / 10));
  });

  it('keeps the first detection when the median line is thick enough, however thin a few lines are', () => {
    const thick = 2 * MIN_LINE_THICKNESS;
    expect(closerSide([line(0, 4), line(40, thick), line(120, thick)], half, PAGE_SIDE)).toBeUndefined();
    expect(closerSide([], half, PAGE_SIDE)).toBeUndefined();
  });

  it('never enlarges a page past its own size, nor past twice the side it was first detected at', () => {
    expect(closerSide([line(0, 4)], half, PAGE_SIDE)).toBe(PAGE_SIDE);
    expect(closerSide([line(0, 4)], half, 4000)).toBe(2 * 880);
    const ownSize: DetectionInput = { ...half, width: 1240, height: 1760, scaleX: 1, scaleY: 1 };
    expect(closerSide([line(0, 4)], ownSize, PAGE_SIDE)).toBeUndefined();
  });

  it('measures a line standing on end across it, not along it', () => {
    const upright = quadOf({ x0: 10, y0: 10, x1: 30, y1: 410 });
    expect(closerSide([upright], half, PAGE_SIDE)).toBe(Math.round((880 * MIN_LINE_THICKNESS) / 10));
  });
});

describe('the side a page is detected at once, planned from the height of its print', () => {
  const PAGE_SIDE = 1786;
  const LIMIT = 960;

  it('is the side at which lines of that height come out MIN_LINE_THICKNESS thick, the smaller the taller the print', () => {
    const small = plannedSide(20, PAGE_SIDE, LIMIT)!;
    const smaller = plannedSide(16, PAGE_SIDE, LIMIT)!;
    expect(small).toBeGreaterThan(LIMIT);
    expect(smaller).toBeLessThan(PAGE_SIDE);
    expect(smaller / small).toBeCloseTo(20 / 16, 2);
  });

  it('plans nothing where the print is unknown, or large enough at the side limit', () => {
    expect(plannedSide(undefined, PAGE_SIDE, LIMIT)).toBeUndefined();
    expect(plannedSide(40, PAGE_SIDE, LIMIT)).toBeUndefined();
  });

  it("never plans past the page's own size, nor past twice the side limit", () => {
    expect(plannedSide(2, PAGE_SIDE, LIMIT)).toBe(PAGE_SIDE);
    expect(plannedSide(2, 4000, LIMIT)).toBe(2 * LIMIT);
    expect(plannedSide(2, LIMIT, LIMIT)).toBeUndefined();
  });
});

describe('the lines read of a page detected first and then closer', () => {
  /** A line from x0 to x1, its top at `y`, `thickness` high. */
  const line = (x0: number, x1: number, y: number, thickness = 20): Quad => quadOf({ x0, y0: y, x1, y1: y + thickness });
  const first = [line(10, 410, 0), line(10, 300, 40)];

  it('are the closer lines when they find again the lines first found: longer, or split where they had run into each other', () => {
    const closer = [line(5, 415, 0), line(10, 380, 40)];
    expect(closerLines(first, closer)).toEqual(closer);
    const split = [line(10, 410, 0), line(10, 410, 24)];
    expect(closerLines([line(10, 410, 0, 44)], split)).toEqual(split);
  });

  it('are none when a line first found is gone, or only a speck of it is left', () => {
    expect(closerLines(first, [line(5, 415, 0)])).toBeUndefined();
    expect(closerLines(first, [line(5, 415, 0), line(10, 100, 40)])).toBeUndefined();
    expect(closerLines(first, [])).toBeUndefined();
  });

  it('keep a lone glyph first found that the closer look missed, and only a glyph', () => {
    const percent = line(500, 530, 40, 18);
    const closer = [line(5, 415, 0), line(10, 380, 40)];
    expect(closerLines([...first, percent], closer)).toEqual([...closer, percent]);
    const shortWord = line(500, 545, 40, 18);
    expect(closerLines([...first, shortWord], closer)).toBeUndefined();
  });
});
