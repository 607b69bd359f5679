import { describe, expect, it } from 'vitest';
import { project, type Pixels } from '../../../../src/engines/ocr/homography.js';
import { leanOf, uprightView } from '../../../../src/engines/ocr/tesseract/shear.js';

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

describe('the lean of a flat view', () => {
  it('finds the shear that stands leaning print up square to its rows, either way, turned or not, and none in upright or merely turned print or a blank view', () => {
    // Strokes 24 px high, drawn to whole pixels, line up alike over about 1/24 of shear.
    for (const lean of [-0.68, -0.3, 0.4]) expect(Math.abs(leanOf(page(lean)) - lean)).toBeLessThan(0.03);
    expect(Math.abs(leanOf(page(0)))).toBeLessThan(0.01);
    // Turned, not leaning: tesseract deskews it; standing its columns up alone would lean its print.
    for (const degrees of [7, -8]) expect(Math.abs(leanOf(page(0, degrees)))).toBeLessThan(0.01);
    for (const [lean, degrees] of [
      [-0.5, 6],
      [0.3, -5],
    ] as const)
      expect(Math.abs(leanOf(page(lean, degrees)) - lean)).toBeLessThan(0.03);
    expect(leanOf({ data: new Uint8Array(WIDTH * HEIGHT).fill(255), width: WIDTH, height: HEIGHT })).toBe(0);
  });

  it('stands the view upright only when it leans enough to matter, and maps the upright view back onto it', () => {
    expect(uprightView(page(0))).toBeUndefined();
    expect(uprightView(page(0.02))).toBeUndefined();
    expect(uprightView(page(0, 7))).toBeUndefined();
    const lean = -0.68;
    const upright = uprightView(page(lean))!;
    expect(upright.height).toBe(HEIGHT);
    expect(upright.width).toBeGreaterThanOrEqual(WIDTH + Math.abs(lean) * HEIGHT - 1);
    // A stroke's foot and head, one above the other in the upright view, land on the stroke as drawn.
    const drawn = (x: number, y: number) => ({ x: x - lean * (y - MIDDLE), y });
    const foot = drawn(200, 300);
    const head = drawn(200, 100);
    const found = leanOf(page(lean));
    const uprightFoot = { x: foot.x + found * (foot.y - MIDDLE) + (Math.abs(found) * HEIGHT) / 2, y: foot.y };
    for (const [point, expected] of [
      [uprightFoot, foot],
      [{ x: uprightFoot.x, y: head.y }, head],
    ] as const) {
      const back = project(upright.toLeaning, point);
      // Within the shear found's error over the 200 px between them.
      expect(Math.abs(back.x - expected.x)).toBeLessThan(0.03 * 200);
      expect(back.y).toBeCloseTo(expected.y, 6);
    }
    // Every point of the upright view comes from within the leaning view's width (nothing cut off).
    for (const corner of [
      { x: 0, y: 0 },
      { x: upright.width, y: HEIGHT },
    ]) {
      const x = project(upright.toLeaning, corner).x;
      expect(x).toBeGreaterThanOrEqual(-WIDTH);
      expect(x).toBeLessThanOrEqual(2 * WIDTH);
    }
  });
});
