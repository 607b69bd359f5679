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

describe('the pixels of a quad', () => {
  it.each([0, 15, 30, 45, 65, 90, 135, 200, 333])('are exactly those whose centres it holds, turned %i°', (degrees) => {
    const quad = turned(30.3, 19.7, 37, 11, degrees);
    expect([...spanned(quad)].sort((a, b) => a - b)).toEqual([...pixelsInside(quad)].sort((a, b) => a - b));
  });

  it('stop at the page, and are none for a quad off it', () => {
    expect(spanned(quadOf({ x0: -10, y0: -10, x1: 2, y1: 2 })).size).toBe(4);
    expect(spanned(quadOf({ x0: 100, y0: 0, x1: 120, y1: 10 })).size).toBe(0);
  });

  it('are painted, and measured, as they are walked', () => {
    const grey = new Uint8Array(size.width * size.height).fill(255);
    const quad = turned(30, 20, 30, 10, 30);
    fillQuads(grey, { ...size, channels: 1 }, [quad], 0);
    expect(meanIn(grey, size, quad)).toEqual({ mean: 0, pixels: pixelsInside(quad).size });
    expect(grey.filter((value) => value === 0).length).toBe(pixelsInside(quad).size);
    const rgb = new Uint8Array(size.width * size.height * 3).fill(255);
    fillQuads(rgb, { ...size, channels: 3 }, [quad], 0);
    expect(rgb.filter((value) => value === 0).length).toBe(3 * pixelsInside(quad).size);
  });
});
