import { describe, expect, it } from 'vitest';
import { composed, homography, project } from '../../../src/engines/ocr/homography.js';
import type { Point, Quad } from '../../../src/engines/ocr/plane.js';

/** Points from x, y pairs. */
const points = (...xy: number[]): Point[] => Array.from({ length: xy.length / 2 }, (_, i) => ({ x: xy[2 * i]!, y: xy[2 * i + 1]! }));
const quad = (...xy: [number, number, number, number, number, number, number, number]): Quad => points(...xy) as Quad;

describe('homographies composed', () => {
  it('map a point as the inner one then the outer one does', () => {
    const inner = homography(quad(0, 0, 100, 0, 100, 100, 0, 100), quad(10, 5, 120, 12, 105, 130, -4, 96));
    const outer = homography(quad(0, 0, 200, 0, 200, 150, 0, 150), quad(30, 20, 260, -10, 240, 190, 15, 170));
    for (const point of points(0, 0, 37, 81, 99, 3)) {
      const once = project(composed(outer, inner), point);
      const twice = project(outer, project(inner, point));
      expect(once.x).toBeCloseTo(twice.x, 6);
      expect(once.y).toBeCloseTo(twice.y, 6);
    }
  });
});
