import { describe, expect, it } from 'vitest';
import { insideQuad, quadOf, type Quad } from '../../../src/engines/ocr/plane.js';
import { fillQuads, forEachSpan, meanIn } from '../../../src/operations/case-file-process/pixels.js';

const size = { width: 60, height: 40 };

/** The pixels whose centres a quad holds, found one by one. */
function pixelsInside(quad: Quad): Set<number> {
  const inside = new Set<number>();
  for (let y = 0; y < size.height; y++) for (let x = 0; x < size.width; x++) if (insideQuad({ x: x + 0.5, y: y + 0.5 }, quad)) inside.add(y * size.width + x);
  return inside;
}

function spanned(quad: Quad): Set<number> {
  const pixels = new Set<number>();
  forEachSpan(quad, size, (y, x0, x1) => {
    for (let x = x0; x <= x1; x++) pixels.add(y * size.width + x);
  });
  return pixels;
}

const turned = (cx: number, cy: number, w: number, h: number, degrees: number): Quad => {
  const r = (degrees * Math.PI) / 180;
  const at = (u: number, v: number) => ({ x: cx + u * Math.cos(r) - v * Math.sin(r), y: cy + u * Math.sin(r) + v * Math.cos(r) });
  return [at(-w / 2, -h / 2), at(w / 2, -h / 2), at(w / 2, h / 2), at(-w / 2, h / 2)];
};

/** Distance from a point to the quad (0 inside). */
function distanceTo(p: { x: number; y: number }, quad: Quad): number {
  if (insideQuad(p, quad)) return 0;
  return Math.min(
    ...quad.map((a, i) => {
      const b = quad[(i + 1) % 4]!;
      const t = Math.max(0, Math.min(1, ((p.x - a.x) * (b.x - a.x) + (p.y - a.y) * (b.y - a.y)) / ((b.x - a.x) ** 2 + (b.y - a.y) ** 2)));
      return Math.hypot(p.x - (a.x + t * (b.x - a.x)), p.y - (a.y + t * (b.y - a.y)));
    }),
  );
}

describe('the pixels of a quad', () => {
  it.each([0, 15, 30, 45, 65, 90, 135, 200, 333])('are every pixel it touches, turned %i°: those whose centres it holds, and none farther than half a pixel\'s diagonal', (degrees) => {
    const quad = turned(30.3, 19.7, 37, 11, degrees);
    const pixels = spanned(quad);
    for (const centre of pixelsInside(quad)) expect(pixels.has(centre)).toBe(true);
    for (const pixel of pixels) {
      const centre = { x: (pixel % size.width) + 0.5, y: Math.floor(pixel / size.width) + 0.5 };
      expect(distanceTo(centre, quad)).toBeLessThanOrEqual(Math.SQRT1_2 + 1e-9);
    }
  });

  it('leave no hairline of page between two turned quads less than a pixel apart', () => {
    // Two halves of a turned strip with a gap of 0.6 px between them.
    const r = (30 * Math.PI) / 180;
    const at = (u: number, v: number) => ({ x: 30 + u * Math.cos(r) - v * Math.sin(r), y: 20 + u * Math.sin(r) + v * Math.cos(r) });
    const left: Quad = [at(-15, -5), at(-0.3, -5), at(-0.3, 5), at(-15, 5)];
    const right: Quad = [at(0.3, -5), at(15, -5), at(15, 5), at(0.3, 5)];
    const whole: Quad = [left[0], right[1], right[2], left[3]];
    const painted = new Set([...spanned(left), ...spanned(right)]);
    const unpainted = [...pixelsInside(whole)].filter((pixel) => !painted.has(pixel));
    expect(unpainted).toEqual([]);
  });

  it('stop at the page, and are none for a quad off it', () => {
    expect(spanned(quadOf({ x0: -10, y0: -10, x1: 2, y1: 2 })).size).toBe(4);
    expect(spanned(quadOf({ x0: 0.5, y0: 0.5, x1: 2.5, y1: 1.5 })).size).toBe(6);
    expect(spanned(quadOf({ x0: 100, y0: 0, x1: 120, y1: 10 })).size).toBe(0);
  });

  it('are painted, and measured, as they are walked', () => {
    const grey = new Uint8Array(size.width * size.height).fill(255);
    const quad = turned(30, 20, 30, 10, 30);
    fillQuads(grey, { ...size, channels: 1 }, [quad], 0);
    expect(meanIn(grey, size, quad)).toEqual({ mean: 0, pixels: spanned(quad).size });
    expect(grey.filter((value) => value === 0).length).toBe(spanned(quad).size);
    const rgb = new Uint8Array(size.width * size.height * 3).fill(255);
    fillQuads(rgb, { ...size, channels: 3 }, [quad], 0);
    expect(rgb.filter((value) => value === 0).length).toBe(3 * spanned(quad).size);
  });
});
