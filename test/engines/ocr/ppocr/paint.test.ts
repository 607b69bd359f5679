import { describe, expect, it } from 'vitest';
import { insideQuad, type Quad } from '../../../../src/engines/ocr/index.js';
import { paintAsPaper } from '../../../../src/engines/ocr/ppocr/paint.js';

const PAPER = [201, 196, 188];

/** A photo's grey paper, `width` × `height`, with each shape drawn in its colour (black unless given). */
function page(width: number, height: number, shapes: Array<{ inside: (x: number, y: number) => boolean; colour?: number[] }>): Uint8Array {
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const shape = shapes.findLast((s) => s.inside(x + 0.5, y + 0.5));
      rgb.set(shape ? (shape.colour ?? [0, 0, 0]) : PAPER, (y * width + x) * 3);
    }
  }
  return rgb;
}

const rectangle = (x0: number, y0: number, x1: number, y1: number) => (x: number, y: number) => x >= x0 && x < x1 && y >= y0 && y < y1;
const quad = (corners: Quad) => (x: number, y: number) => insideQuad({ x, y }, corners);

/** Pixels that are black. */
const blackPixels = (rgb: Uint8Array) => Array.from({ length: rgb.length / 3 }, (_, i) => i).filter((i) => rgb[3 * i]! + rgb[3 * i + 1]! + rgb[3 * i + 2]! === 0).length;

describe('paintAsPaper', () => {
  it('fills a redaction quad, straight or turned, with the paper beside it', () => {
    const turned: Quad = [
      { x: 40, y: 60 },
      { x: 150, y: 30 },
      { x: 156, y: 52 },
      { x: 46, y: 82 },
    ];
    const rgb = page(400, 240, [{ inside: quad(turned) }, { inside: rectangle(20, 95, 90, 111) }]);
    paintAsPaper(rgb, 400, 240);
    expect(blackPixels(rgb)).toBe(0);
    expect([...rgb.subarray(3 * (100 * 400 + 50), 3 * (100 * 400 + 50) + 3)]).toEqual(PAPER);
  });

  it('leaves print alone: strokes, a table rule, bold glyphs, and a patch smaller than paint', () => {
    const shapes = [
      // A 十 of strokes 4 pixels thick, a rule 6 pixels thick across the page, a bold 口 and L, and a small square.
      { inside: rectangle(20, 30, 60, 34) },
      { inside: rectangle(38, 12, 42, 52) },
      { inside: rectangle(0, 60, 400, 66) },
      { inside: (x: number, y: number) => rectangle(80, 10, 120, 50)(x, y) && !rectangle(88, 18, 112, 42)(x, y) },
      { inside: (x: number, y: number) => rectangle(140, 80, 150, 120)(x, y) || rectangle(140, 110, 180, 120)(x, y) },
      { inside: rectangle(200, 20, 212, 32) },
    ];
    const rgb = page(400, 240, shapes);
    const before = Uint8Array.from(rgb);
    paintAsPaper(rgb, 400, 240);
    expect(rgb).toEqual(before);
  });

  it('leaves a black bar with white print across it, and a black background, alone', () => {
    const bar = page(600, 400, [{ inside: rectangle(10, 10, 190, 40) }, { inside: rectangle(30, 20, 34, 30), colour: [255, 255, 255] }]);
    const barBefore = Uint8Array.from(bar);
    paintAsPaper(bar, 600, 400);
    expect(bar).toEqual(barBefore);

    // Its print at its edge, past where each row's black ends.
    const scan = page(200, 120, [{ inside: rectangle(0, 0, 200, 120) }, { inside: rectangle(194, 100, 200, 104), colour: [255, 255, 255] }]);
    const scanBefore = Uint8Array.from(scan);
    paintAsPaper(scan, 200, 120);
    expect(scan).toEqual(scanBefore);
  });
});
