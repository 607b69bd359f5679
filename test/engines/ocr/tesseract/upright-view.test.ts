import { describe, expect, it } from 'vitest';
import { homography, project, type Pixels } from '../../../../src/engines/ocr/homography.js';
import type { Quad } from '../../../../src/engines/ocr/plane.js';
import { grainOf, uprightView } from '../../../../src/engines/ocr/tesseract/upright-view.js';

const WIDTH = 600;
const HEIGHT = 400;
const MIDDLE = HEIGHT / 2;

/**
 * Rows of character-like marks, each an upright stroke 24 px high and a level one, drawn leaning
 * by `lean` (the point (x, y) of the upright drawing at x − lean·(y − middle)), then turned by
 * `degrees` about the middle.
 */
function page(lean: number, degrees = 0): Pixels {
  const data = new Uint8Array(WIDTH * HEIGHT).fill(255);
  const [cos, sin] = [Math.cos((degrees * Math.PI) / 180), Math.sin((degrees * Math.PI) / 180)];
  const ink = (x: number, y: number) => {
    const [dx, dy] = [x - lean * (y - MIDDLE) - WIDTH / 2, y - MIDDLE];
    const [at, row] = [Math.round(WIDTH / 2 + dx * cos - dy * sin), Math.round(MIDDLE + dx * sin + dy * cos)];
    if (at >= 0 && at < WIDTH && row >= 0 && row < HEIGHT) data[row * WIDTH + at] = 0;
  };
  for (let row = 0; row < 6; row++) {
    const top = 40 + row * 55;
    for (let mark = 0; mark < 12; mark++) {
      const left = 130 + mark * 28 + ((row * 7) % 11);
      for (let y = top; y < top + 24; y++) for (let x = left; x < left + 3; x++) ink(x, y);
      for (let x = left - 6; x < left + 12; x++) for (let y = top + 10; y < top + 12; y++) ink(x, y);
    }
  }
  return { data, width: WIDTH, height: HEIGHT };
}

const tan = (degrees: number) => Math.tan((degrees * Math.PI) / 180);

describe('the grain of a flat view', () => {
  it('finds how its rows run and the shear that stands its print up square to them, leaning either way, turned or not', () => {
    // Strokes 24 px high, drawn to whole pixels, line up alike over about 1/24 of shear.
    for (const lean of [-0.68, -0.3, 0, 0.4]) {
      const { rowSlope, columnShear } = grainOf(page(lean));
      expect(Math.abs(rowSlope)).toBeLessThan(0.01);
      expect(Math.abs(columnShear - lean)).toBeLessThan(0.03);
    }
    for (const degrees of [7, -8]) {
      const { rowSlope, columnShear } = grainOf(page(0, degrees));
      expect(Math.abs(rowSlope - tan(degrees))).toBeLessThan(0.01);
      expect(Math.abs(columnShear - tan(degrees))).toBeLessThan(0.02);
    }
    for (const [lean, degrees] of [
      [-0.5, 6],
      [0.3, -5],
    ] as const) {
      const { rowSlope, columnShear } = grainOf(page(lean, degrees));
      expect(Math.abs(rowSlope - tan(degrees))).toBeLessThan(0.01);
      expect(Math.abs(columnShear - rowSlope - lean)).toBeLessThan(0.03);
    }
    expect(grainOf({ data: new Uint8Array(WIDTH * HEIGHT).fill(255), width: WIDTH, height: HEIGHT })).toEqual({ rowSlope: 0, columnShear: 0 });
  });

  it('is left as it is when it is skewed and leans too little to matter', () => {
    for (const view of [page(0), page(0.02), page(0, 1), page(0.02, -1)]) expect(uprightView(view)).toBeUndefined();
  });

  it.each([
    ['leaning', -0.68, 0],
    ['turned', 0, 9],
    ['turned and leaning', 0.3, -6],
  ])('drawn upright when %s: its rows level and its columns plumb, at their scale, nothing cut off', (_how, lean, degrees) => {
    const upright = uprightView(page(lean, degrees))!;
    // The drawing's points (x, y) as drawn, then leaning and turned as page() draws them.
    const [cos, sin] = [Math.cos((degrees * Math.PI) / 180), Math.sin((degrees * Math.PI) / 180)];
    const drawn = (x: number, y: number) => {
      const [dx, dy] = [x - lean * (y - MIDDLE) - WIDTH / 2, y - MIDDLE];
      return { x: WIDTH / 2 + dx * cos - dy * sin, y: MIDDLE + dx * sin + dy * cos };
    };
    const corners = (width: number, height: number): Quad => [
      { x: 0, y: 0 },
      { x: width, y: 0 },
      { x: width, y: height },
      { x: 0, y: height },
    ];
    const toUpright = homography(corners(upright.width, upright.height).map((corner) => project(upright.toLeaning, corner)) as Quad, corners(upright.width, upright.height));
    const at = (x: number, y: number) => project(toUpright, drawn(x, y));
    // A stroke's foot and head, 200 px apart, one above the other; a row's two ends, 300 px apart, level.
    const [foot, head, start, end] = [at(200, 300), at(200, 100), at(150, 200), at(450, 200)];
    expect(Math.abs(foot.x - head.x)).toBeLessThan(0.03 * 200);
    expect(Math.abs(start.y - end.y)).toBeLessThan(0.01 * 300);
    expect(Math.hypot(end.x - start.x, end.y - start.y)).toBeCloseTo(300, -1);
    for (const corner of corners(WIDTH, HEIGHT)) {
      const inside = project(toUpright, corner);
      expect(inside.x).toBeGreaterThanOrEqual(-1);
      expect(inside.x).toBeLessThanOrEqual(upright.width + 1);
      expect(inside.y).toBeGreaterThanOrEqual(-1);
      expect(inside.y).toBeLessThanOrEqual(upright.height + 1);
    }
  });
});
