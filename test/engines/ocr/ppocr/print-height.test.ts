import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../../../scripts/lib/paths.js';
import { DETECTION_DEFAULTS, plannedSide } from '../../../../src/engines/ocr/ppocr/detect.js';
import { decodeRgb, type RgbImage } from '../../../../src/engines/ocr/ppocr/image.js';
import { printLineHeight } from '../../../../src/engines/ocr/ppocr/print-height.js';

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
