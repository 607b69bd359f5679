import { describe, expect, it } from 'vitest';
import { cutNormalised } from '../../../../src/engines/ocr/ppocr/crop.js';
import { cutNormalisedInJs } from './crop-reference.js';
import { homography } from '../../../../src/engines/ocr/homography.js';
import { rectQuad } from '../../../../src/engines/ocr/ppocr/geometry.js';
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

/** The crop by definition: each pixel centre through the homography onto the page, bilinear, clamped to its edge pixels. */
function cutByDefinition(quad: Quad, width: number, height: number): Float32Array {
  const { data, width: w, height: hh } = page(60, 40);
  const h = homography(rectQuad(width, height), quad);
  const out = new Float32Array(3 * width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const d = h[6] * (x + 0.5) + h[7] * (y + 0.5) + h[8];
      const sx = Math.min(w - 1, Math.max(0, (h[0] * (x + 0.5) + h[1] * (y + 0.5) + h[2]) / d - 0.5));
      const sy = Math.min(hh - 1, Math.max(0, (h[3] * (x + 0.5) + h[4] * (y + 0.5) + h[5]) / d - 0.5));
      const [x0, y0] = [Math.floor(sx), Math.floor(sy)];
      const [x1, y1] = [Math.min(w - 1, x0 + 1), Math.min(hh - 1, y0 + 1)];
      const at = (px: number, py: number, c: number) => data[(py * w + px) * 3 + c]!;
      for (const [c, plane] of [[2, 0], [1, 1], [0, 2]] as const) {
        const top = at(x0, y0, c) * (1 - (sx - x0)) + at(x1, y0, c) * (sx - x0);
        const bottom = at(x0, y1, c) * (1 - (sx - x0)) + at(x1, y1, c) * (sx - x0);
        out[plane * width * height + y * width + x] = (top * (1 - (sy - y0)) + bottom * (sy - y0)) / 127.5 - 1;
      }
    }
  }
  return out;
}

/** `quad` turned `degrees` about its first corner. */
function turned(quad: Quad, degrees: number): Quad {
  const [cos, sin] = [Math.cos((degrees * Math.PI) / 180), Math.sin((degrees * Math.PI) / 180)];
  const { x: ox, y: oy } = quad[0];
  return quad.map(({ x, y }) => ({ x: ox + (x - ox) * cos - (y - oy) * sin, y: oy + (x - ox) * sin + (y - oy) * cos })) as Quad;
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

  it('samples a turned line, or one seen at a slant, as the homography does pixel by pixel, inside the page and where it runs past its edges', () => {
    const inPerspective: Quad = [{ x: 4.2, y: 6.1 }, { x: 50.3, y: 9.4 }, { x: 47.9, y: 21.8 }, { x: 6.6, y: 15.2 }];
    const pastEdges: Quad = [{ x: -3.5, y: 28.2 }, { x: 64.1, y: 30.9 }, { x: 61.2, y: 43.5 }, { x: -1.1, y: 37.7 }];
    for (const quad of [turned(level, 0.5), turned(level, -3), turned(quadOf({ x0: -4, y0: 30.5, x1: 70, y1: 42 }), 1), inPerspective, pastEdges]) {
      const crop = cut(quad, 100, 24);
      expect(maxDifference(crop, cutByDefinition(quad, 100, 24))).toBeLessThan(1e-4);
      expect(maxDifference(crop, new Float32Array(crop.length))).toBeGreaterThan(0.5);
    }
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

/** A pseudo-random generator with a fixed seed (mulberry32), so that every run draws the same quads. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('a text line cut in WebAssembly', () => {
  const [pageWidth, pageHeight] = [97, 63];
  const data = page(pageWidth, pageHeight).data;
  const image = { data, width: pageWidth, height: pageHeight };
  const random = seeded(26);
  const between = (low: number, high: number) => low + (high - low) * random();
  /** A line `length` long and `thickness` thick from (`x`, `y`), turned `degrees`, each corner moved up to `skew` pixels (perspective). */
  const line = (x: number, y: number, length: number, thickness: number, degrees: number, skew: number): Quad => {
    const corners = turned(quadOf({ x0: x, y0: y, x1: x + length, y1: y + thickness }), degrees);
    return corners.map((corner) => ({ x: corner.x + between(-skew, skew), y: corner.y + between(-skew, skew) })) as Quad;
  };
  const quads: Quad[] = [];
  for (let i = 0; i < 40; i++) {
    // Within the page, and up to a third of a line past each edge.
    const [x, y] = [between(-20, pageWidth - 10), between(-8, pageHeight - 4)];
    const [length, thickness] = [between(8, 90), between(3, 20)];
    quads.push(line(x, y, length, thickness, 0, 0), line(x, y, length, thickness, between(-8, 8), 0), line(x, y, length, thickness, between(-8, 8), between(0.5, 4)));
  }

  it('writes the same floats as the JavaScript reference for level, turned and perspective quads, inside the page and past its edges', () => {
    for (const quad of quads) {
      const [width, height] = [1 + Math.floor(between(4, 160)), 1 + Math.floor(between(8, 48))];
      // Into a wider batch at an offset, as the recogniser's tensor takes it: the padding must stay as it was.
      const stride = width + 7;
      const target = () => ({ out: new Float32Array(3 * stride * height + 11).fill(9), offset: 11, stride, planeSize: stride * height });
      const [wasm, js] = [target(), target()];
      cutNormalised(image, quad, width, height, wasm);
      cutNormalisedInJs(image, quad, width, height, js);
      expect(Buffer.from(wasm.out.buffer).equals(Buffer.from(js.out.buffer)), JSON.stringify({ quad, width, height })).toBe(true);
    }
  });
});
