import { describe, expect, it } from 'vitest';
import { cutNormalised } from '../../../../src/engines/ocr/ppocr/crop.js';
import { quadOf, type Quad } from '../../../../src/engines/ocr/plane.js';

/** A page of pseudo-random pixels: every sample differs from its neighbours. */
function page(width: number, height: number) {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24;
  return { data, width, height };
}

function cut(quad: Quad, width: number, height: number): Float32Array {
  const out = new Float32Array(3 * width * height);
  cutNormalised(page(60, 40), quad, width, height, { out, offset: 0, stride: width, planeSize: width * height });
  return out;
}

const maxDifference = (a: Float32Array, b: Float32Array) => a.reduce((most, value, i) => Math.max(most, Math.abs(value - b[i]!)), 0);

describe('a text line cut from the page', () => {
  const level = quadOf({ x0: 3.3, y0: 5.6, x1: 51.7, y1: 17.2 });

  it('is sampled the same whether its line lies level or at the least slant', () => {
    // A millionth of a pixel of perspective sends the same line through the homography pixel by pixel.
    const slanted: Quad = [level[0], level[1], { x: 51.7, y: 17.200001 }, level[3]];
    const a = cut(level, 120, 24);
    const b = cut(slanted, 120, 24);
    expect(maxDifference(a, b)).toBeLessThan(1e-4);
    expect(maxDifference(a, new Float32Array(a.length))).toBeGreaterThan(0.5);
  });

  it('takes each pixel of a crop at the page scale from the page, normalised, in BGR planes', () => {
    const out = cut(quadOf({ x0: 0, y0: 0, x1: 60, y1: 40 }), 60, 40);
    const { data } = page(60, 40);
    const plane = 60 * 40;
    for (const pixel of [0, 61, 1234, plane - 1]) {
      expect(out[pixel]).toBeCloseTo(data[pixel * 3 + 2]! / 127.5 - 1, 5);
      expect(out[plane + pixel]).toBeCloseTo(data[pixel * 3 + 1]! / 127.5 - 1, 5);
      expect(out[2 * plane + pixel]).toBeCloseTo(data[pixel * 3]! / 127.5 - 1, 5);
    }
  });
});
