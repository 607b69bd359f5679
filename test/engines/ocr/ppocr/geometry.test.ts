import { describe, expect, it } from 'vitest';
import { homography, project } from '../../../../src/engines/ocr/homography.js';
import { convexHull, lineQuad, minAreaRect, rectQuad, unclip } from '../../../../src/engines/ocr/ppocr/geometry.js';
import type { Point, Quad } from '../../../../src/engines/ocr/plane.js';

const close = (a: Point, b: Point) => {
  expect(a.x).toBeCloseTo(b.x, 6);
  expect(a.y).toBeCloseTo(b.y, 6);
};

/** The pixel corners of a filled rectangle `w` × `h` turned `angle` radians about (cx, cy). */
function turnedRectangle(cx: number, cy: number, w: number, h: number, angle: number): Point[] {
  const points: Point[] = [];
  for (let u = -w / 2; u <= w / 2; u += 1) {
    for (const v of [-h / 2, h / 2]) points.push({ x: cx + u * Math.cos(angle) - v * Math.sin(angle), y: cy + u * Math.sin(angle) + v * Math.cos(angle) });
  }
  for (let v = -h / 2; v <= h / 2; v += 1) {
    for (const u of [-w / 2, w / 2]) points.push({ x: cx + u * Math.cos(angle) - v * Math.sin(angle), y: cy + u * Math.sin(angle) + v * Math.cos(angle) });
  }
  return points;
}

describe('convex hull', () => {
  it('keeps only the outer corners', () => {
    const hull = convexHull([
      { x: 0, y: 0 },
      { x: 2, y: 0 },
      { x: 1, y: 1 },
      { x: 2, y: 2 },
      { x: 0, y: 2 },
      { x: 1, y: 0 },
    ]);
    expect(hull).toHaveLength(4);
    expect(hull).toEqual(expect.arrayContaining([{ x: 0, y: 0 }, { x: 2, y: 0 }, { x: 2, y: 2 }, { x: 0, y: 2 }]));
  });
});

describe('minimum-area rectangle', () => {
  it('finds a tilted line as tilted, with its length and thickness', () => {
    const angle = (12 * Math.PI) / 180;
    const rect = minAreaRect(turnedRectangle(300, 200, 400, 40, angle));
    expect(rect.center.x).toBeCloseTo(300, 4);
    expect(rect.center.y).toBeCloseTo(200, 4);
    expect(Math.max(rect.width, rect.height)).toBeCloseTo(400, 4);
    expect(Math.min(rect.width, rect.height)).toBeCloseTo(40, 4);
    const quad = lineQuad(rect);
    expect(Math.atan2(quad[1].y - quad[0].y, quad[1].x - quad[0].x)).toBeCloseTo(angle, 6);
  });

  it('grows by unclip on every side: ratio × area / perimeter', () => {
    const grown = unclip({ center: { x: 0, y: 0 }, width: 100, height: 20, angle: 0 }, 1.5);
    const offset = (100 * 20 * 1.5) / 240;
    expect(grown.width).toBeCloseTo(100 + 2 * offset);
    expect(grown.height).toBeCloseTo(20 + 2 * offset);
  });
});

describe('line quads read from the start of the line', () => {
  it('a horizontal line starts top-left', () => {
    const quad = lineQuad({ center: { x: 50, y: 10 }, width: 100, height: 20, angle: Math.PI });
    close(quad[0], { x: 0, y: 0 });
    close(quad[2], { x: 100, y: 20 });
  });

  it('a vertical line (a page turned a quarter) runs down, its top side facing right', () => {
    const quad = lineQuad({ center: { x: 10, y: 50 }, width: 20, height: 100, angle: 0 });
    close(quad[0], { x: 20, y: 0 });
    close(quad[1], { x: 20, y: 100 });
    close(quad[3], { x: 0, y: 0 });
  });
});

describe('homography', () => {
  it('maps the crop rectangle onto any quad, corners and interior', () => {
    const to: Quad = [
      { x: 10, y: 20 },
      { x: 210, y: 40 },
      { x: 205, y: 90 },
      { x: 5, y: 70 },
    ];
    const h = homography(rectQuad(200, 48), to);
    rectQuad(200, 48).forEach((corner, i) => close(project(h, corner), to[i]!));
    const centre = project(h, { x: 100, y: 24 });
    expect(centre.x).toBeGreaterThan(5);
    expect(centre.x).toBeLessThan(210);
  });
});
