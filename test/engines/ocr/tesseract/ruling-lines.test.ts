import { describe, expect, it } from 'vitest';
import { eraseRulingLines } from '../../../../src/engines/ocr/tesseract/prepare.js';

const WIDTH = 400;
const HEIGHT = 300;

function canvas(): Buffer {
  return Buffer.alloc(WIDTH * HEIGHT, 255);
}

function fill(grey: Buffer, x0: number, y0: number, x1: number, y1: number): void {
  for (let y = y0; y < y1; y++) grey.fill(0, y * WIDTH + x0, y * WIDTH + x1);
}

const darkIn = (grey: Buffer, x0: number, y0: number, x1: number, y1: number) => {
  let dark = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (grey[y * WIDTH + x]! < 128) dark++;
  return dark;
};

describe('ruling lines', () => {
  it('erases the borders of a table, crossings included, and keeps the strokes inside its cells', () => {
    const grey = canvas();
    for (const y of [20, 100, 180]) fill(grey, 20, y, 380, y + 3);
    for (const x of [20, 200, 377]) fill(grey, x, 20, x + 3, 183);
    fill(grey, 40, 50, 90, 54); // a character's stroke, 50 px
    fill(grey, 60, 40, 64, 80);
    const lines = darkIn(grey, 0, 0, WIDTH, 30) + darkIn(grey, 195, 0, 210, HEIGHT);
    eraseRulingLines(grey, WIDTH, HEIGHT);
    // At most the 3×3 px corners and crossings stay, where both lines are thick across.
    expect(lines).toBeGreaterThan(1000);
    expect(darkIn(grey, 0, 0, WIDTH, 30) + darkIn(grey, 195, 0, 210, HEIGHT)).toBeLessThanOrEqual(4 * 9);
    expect(darkIn(grey, 40, 50, 90, 54)).toBe(50 * 4);
    expect(darkIn(grey, 60, 40, 64, 80)).toBe(4 * 40);
  });

  it('keeps a shadow, dark on both sides, and aligned strokes of neighbouring characters', () => {
    const grey = canvas();
    fill(grey, 0, 200, WIDTH, 260); // a shadow across a photo
    for (let x = 10; x < 340; x += 60) fill(grey, x, 120, x + 54, 124); // 一一一一…, 6 px apart
    const before = darkIn(grey, 0, 0, WIDTH, HEIGHT);
    eraseRulingLines(grey, WIDTH, HEIGHT);
    expect(darkIn(grey, 0, 110, WIDTH, 130)).toBe(6 * 54 * 4);
    expect(darkIn(grey, 0, 0, WIDTH, HEIGHT)).toBe(before);
  });

  it("erases a line's grey anti-aliased edge with it, and keeps a grey stroke away from any line", () => {
    const grey = canvas();
    fill(grey, 20, 100, 380, 102);
    // The edge rows of a line drawn off the pixel grid: grey, here and there dark enough for ink.
    for (let x = 20; x < 380; x++) {
      grey[99 * WIDTH + x] = x % 7 ? 190 : 120;
      grey[102 * WIDTH + x] = x % 5 ? 210 : 100;
    }
    for (let x = 60; x < 100; x++) grey[200 * WIDTH + x] = 190; // a faint stroke
    eraseRulingLines(grey, WIDTH, HEIGHT);
    const marked = (y: number) => [...grey.subarray(y * WIDTH + 20, y * WIDTH + 380)].filter((value) => value < 224).length;
    expect([marked(99), marked(100), marked(101), marked(102)]).toEqual([0, 0, 0, 0]);
    expect(grey.subarray(200 * WIDTH + 60, 200 * WIDTH + 100).every((value) => value === 190)).toBe(true);
  });
});

describe("tesseract's view of a page", () => {
  it('is grey and upscaled to about 2000 px, and its readings scale back to the page sent', async () => {
    const { prepareForTesseract, scaledPage } = await import('../../../../src/engines/ocr/tesseract/prepare.js');
    const { default: sharp } = await import('sharp');
    const page = await sharp({ create: { width: 1000, height: 500, channels: 3, background: 'white' } }).png().toBuffer();
    const prepared = await prepareForTesseract(page, false);
    const meta = await sharp(prepared.image).metadata();
    expect(meta.channels).toBe(1);
    expect([meta.width, meta.height]).toEqual([2000, 1000]);
    expect(prepared.scale).toBe(2);
    const reading = { text: 'x', words: [{ text: 'x', confidence: 90, line: 0, box: { x0: 100, y0: 40, x1: 300, y1: 80 } }], width: 2000, height: 1000, confidence: 90, rotation: 0 as const, deskewRadians: 0 };
    expect(scaledPage(reading, 1 / prepared.scale)).toMatchObject({ width: 1000, height: 500, words: [{ box: { x0: 50, y0: 20, x1: 150, y1: 40 } }] });
  });

  it('erases the rules of a table turned 15° once it stands level, and keeps the strokes in its cells', async () => {
    const { turnedView } = await import('../../../../src/engines/ocr/tesseract/prepare.js');
    const { default: sharp } = await import('sharp');
    const grey = canvas();
    for (const y of [20, 100, 180]) fill(grey, 20, y, 380, y + 3);
    for (const x of [20, 200, 377]) fill(grey, x, 20, x + 3, 183);
    const strokes = [
      [40, 50, 90, 54],
      [60, 40, 64, 80],
      [230, 130, 280, 134],
      [250, 120, 254, 160],
    ] as const;
    for (const [x0, y0, x1, y1] of strokes) fill(grey, x0, y0, x1, y1);
    const raw = { raw: { width: WIDTH, height: HEIGHT, channels: 1 as const } };
    const turned = await sharp(grey, raw).rotate(-15, { background: '#ffffff' }).png().toBuffer();
    const dark = async (png: Buffer) => [...(await sharp(png).toColourspace('b-w').raw().toBuffer())].filter((value) => value < 128).length;
    const strokePixels = strokes.reduce((sum, [x0, y0, x1, y1]) => sum + (x1 - x0) * (y1 - y0), 0);
    const kept = await dark((await turnedView(turned, 15, false)).image);
    const erased = await dark((await turnedView(turned, 15, true)).image);
    expect(kept).toBeGreaterThan(strokePixels + 2000);
    expect(erased).toBeGreaterThan(strokePixels * 0.9);
    expect(erased).toBeLessThan(strokePixels * 1.15);
  });
});
