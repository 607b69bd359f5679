import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../../../scripts/lib/paths.js';
import { DETECTION_DEFAULTS, plannedSide } from '../../../../src/engines/ocr/ppocr/detect.js';
import { decodeRgb, type RgbImage } from '../../../../src/engines/ocr/ppocr/image.js';
import { darkestView, printLineHeight, type DarkestView } from '../../../../src/engines/ocr/ppocr/print-height.js';

/** The page as the pipeline detects it: decoded with its white margin. */
const page = async (bytes: Uint8Array): Promise<RgbImage> => decodeRgb(bytes, 16);
const a4 = (file: string) => readFile(fixturePath('ocr', 'a4', file));
const longest = (image: RgbImage) => Math.max(image.width, image.height);

describe("the height of a page's lines of print, from its pixels", () => {
  it('measures the same print alike at 150 and 300 dpi, in page pixels, in English and Chinese', async () => {
    for (const report of ['en-pathology', 'zh-radiology']) {
      const low = printLineHeight(await page(await a4(`${report}-150dpi.png`)));
      const high = printLineHeight(await page(await a4(`${report}-300dpi.jpg`)));
      // Small print at 150 dpi: about 8 pt, a line of ink 15–19 px tall.
      expect(low, report).toBeGreaterThan(15);
      expect(low, report).toBeLessThan(19);
      expect(high! / low!, report).toBeGreaterThan(1.9);
      expect(high! / low!, report).toBeLessThan(2.15);
    }
  });

  it('plans an A4 page of small print at least at the side its lines asked for once detected at the side limit, and not far past it', async () => {
    // The side closerSide gave each page from its lines detected at 960 px.
    const asked = { 'en-blood-count-150dpi.png': 1211, 'zh-pathology-300dpi.jpg': 1241 };
    for (const [file, side] of Object.entries(asked)) {
      const image = await page(await a4(file));
      const planned = plannedSide(printLineHeight(image), longest(image), DETECTION_DEFAULTS.maxSide);
      expect(planned, file).toBeGreaterThanOrEqual(side);
      expect(planned, file).toBeLessThan(1.2 * side);
    }
  });

  it('plans nothing for a page whose print is large enough at the side limit', async () => {
    const image = await page(await readFile(fixturePath('ocr', 'report1.png')));
    expect(printLineHeight(image)).toBeGreaterThan(20);
    expect(plannedSide(printLineHeight(image), longest(image), DETECTION_DEFAULTS.maxSide)).toBeUndefined();
  });

  it('cannot be trusted on a page blurred so that its strokes wash out, whose detected lines must decide whether it is legible', async () => {
    const blurred = await sharp(await a4('en-pathology-150dpi.png')).blur(2).png().toBuffer();
    expect(printLineHeight(await page(blurred))).toBeUndefined();
    const unreadable = await sharp(await readFile(fixturePath('deid', 'pathology-zh-clean.png'))).blur(5).png().toBuffer();
    expect(printLineHeight(await page(unreadable))).toBeUndefined();
  });

  it("cannot be trusted on a photo's grey paper, nor on a page without print", async () => {
    expect(printLineHeight(await page(await readFile(fixturePath('photos', 'np2016_bloodtestreport1.jpg'))))).toBeUndefined();
    const blank = await sharp({ create: { width: 1240, height: 1754, channels: 3, background: '#ffffff' } }).png().toBuffer();
    expect(printLineHeight(await page(blank))).toBeUndefined();
  });
});

/** The view by definition, in JavaScript: each sampled pixel's green into the cell it falls in, a cell's samples starting where the one before stopped. */
function darkestViewInJs({ data, width, height }: RgbImage): DarkestView {
  const step = Math.max(1, Math.round(Math.max(width, height) / 640));
  const stride = Math.max(1, Math.floor(step / 3));
  const cells = { width: Math.ceil(width / step), height: Math.ceil(height / step) };
  const greys = new Uint8Array(cells.width * cells.height).fill(255);
  for (let y = 0; y < height; y += stride) {
    const row = Math.floor(y / step) * cells.width;
    for (let x = 0, cell = row; x < width; cell++) {
      for (const end = Math.min(width, x + step); x < end; x += stride) greys[cell] = Math.min(greys[cell]!, data[(y * width + x) * 3 + 1]!);
    }
  }
  return { greys, ...cells, step };
}

/** A page of pseudo-random light pixels with darker ones among them, `seed` apart. */
function randomPage(width: number, height: number, seed: number): RgbImage {
  const data = Uint8Array.from({ length: width * height * 3 }, (_, i) => {
    const hash = ((i + seed) * 2654435761) >>> 16;
    return hash % 23 === 0 ? hash % 200 : 200 + (hash % 56);
  });
  return { data, width, height };
}

describe("a page's darkest view", () => {
  it('is the view by definition, at steps that the stride divides and at one it does not, with a last cell row of no sampled row', () => {
    // Steps 2, 3, 5 (stride 1), 6 (stride 2) and 7 (stride 2: its cells are 8 pixels apart; 92 rows leave the 14th cell row unsampled).
    for (const [width, height] of [[1273, 90], [61, 1786], [3200, 33], [3900, 41], [4480, 92], [17, 4480]] as const) {
      const image = randomPage(width, height, width + height);
      expect(darkestView(image), `${width} × ${height}`).toEqual(darkestViewInJs(image));
    }
  });

  it('is the view by definition on pages at 150 and 300 dpi, a smaller after a larger', async () => {
    for (const file of ['zh-pathology-300dpi.jpg', 'en-radiology-150dpi.png']) {
      const image = await page(await a4(file));
      expect(darkestView(image), file).toEqual(darkestViewInJs(image));
    }
  });
});
