import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { boundingBox, insideQuad, pointInQuad, quadOf, turnedSize, turnPoint, unturnPoint, type Point } from '../../../src/engines/ocr/plane.js';

const size = { width: 100, height: 50 };

describe('a page turned by any angle', () => {
  it('turns a point exactly by quarter turns, the sides swapped', () => {
    const p = { x: 10, y: 20 };
    expect(turnPoint(p, 90, size, turnedSize(size, 90))).toEqual({ x: 30, y: 10 });
    expect(turnPoint(p, 180, size, turnedSize(size, 180))).toEqual({ x: 90, y: 30 });
    expect(turnPoint(p, 270, size, turnedSize(size, 270))).toEqual({ x: 20, y: 90 });
    expect(turnedSize(size, 90)).toEqual({ width: 50, height: 100 });
    expect(turnedSize(size, -90)).toEqual({ width: 50, height: 100 });
  });

  it.each([15, 30, 45, 65, 135, 200, 345, -20])('carries a point to the page turned %i° and back', (degrees) => {
    const turned = turnedSize(size, degrees);
    for (const p of [{ x: 0, y: 0 }, { x: 100, y: 50 }, { x: 37, y: 12 }]) {
      const back = unturnPoint(turnPoint(p, degrees, size, turned), degrees, turned, size);
      expect(back.x).toBeCloseTo(p.x, 9);
      expect(back.y).toBeCloseTo(p.y, 9);
    }
  });

  /**
   * sharp (libvips) turns an image about its centre onto the box around it, positive angles
   * clockwise: bright dots land where turnPoint says, within its rounding of the canvas.
   */
  it.each([30, -17, 90, 135, 200, 1.5, 65])('agrees with sharp turning an image %s°', async (degrees) => {
    const width = 301;
    const height = 201;
    const dots: Point[] = [{ x: 20, y: 30 }, { x: 250, y: 40 }, { x: 150, y: 100 }, { x: 280, y: 180 }];
    const pixels = Buffer.alloc(width * height);
    for (const { x, y } of dots) for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) pixels[(y + dy) * width + x + dx] = 255;
    const { data, info } = await sharp(pixels, { raw: { width, height, channels: 1 } })
      .rotate(degrees, { background: '#000000' })
      .extractChannel(0)
      .raw()
      .toBuffer({ resolveWithObject: true });
    const turned = { width: info.width, height: info.height };
    expect(Math.abs(turned.width - turnedSize({ width, height }, degrees).width)).toBeLessThanOrEqual(1);
    expect(Math.abs(turned.height - turnedSize({ width, height }, degrees).height)).toBeLessThanOrEqual(1);
    for (const dot of dots) {
      const expected = turnPoint({ x: dot.x + 0.5, y: dot.y + 0.5 }, degrees, { width, height }, turned);
      let sum = 0;
      let sx = 0;
      let sy = 0;
      for (let y = Math.max(0, Math.floor(expected.y - 8)); y < Math.min(turned.height, expected.y + 8); y++) {
        for (let x = Math.max(0, Math.floor(expected.x - 8)); x < Math.min(turned.width, expected.x + 8); x++) {
          const value = data[y * turned.width + x]!;
          sum += value;
          sx += value * (x + 0.5);
          sy += value * (y + 0.5);
        }
      }
      expect(sum).toBeGreaterThan(0);
      expect(Math.hypot(sx / sum - expected.x, sy / sum - expected.y)).toBeLessThan(1.5);
    }
  });
});

describe('quads', () => {
  const tilted = [{ x: 10, y: 0 }, { x: 20, y: 10 }, { x: 10, y: 20 }, { x: 0, y: 10 }] as const;

  it('holds the points inside, edges included, whichever way its corners run', () => {
    const diamond = [...tilted] as [Point, Point, Point, Point];
    expect(insideQuad({ x: 10, y: 10 }, diamond)).toBe(true);
    expect(insideQuad({ x: 15, y: 5 }, diamond)).toBe(true);
    expect(insideQuad({ x: 2, y: 2 }, diamond)).toBe(false);
    expect(insideQuad({ x: 10, y: 10 }, [...diamond].reverse() as typeof diamond)).toBe(true);
    expect(insideQuad({ x: 2, y: 2 }, [...diamond].reverse() as typeof diamond)).toBe(false);
  });

  it('places points along and across it', () => {
    const box = quadOf({ x0: 0, y0: 0, x1: 100, y1: 40 });
    expect(pointInQuad(box, 0.5, 0.5)).toEqual({ x: 50, y: 20 });
    expect(pointInQuad([...tilted] as [Point, Point, Point, Point], 1, 1)).toEqual({ x: 10, y: 20 });
  });

  it('a bounding box holds every point', () => {
    expect(boundingBox([{ x: 3, y: 9 }, { x: -1, y: 4 }, { x: 7, y: 5 }])).toEqual({ x0: -1, y0: 4, x1: 7, y1: 9 });
  });
});
