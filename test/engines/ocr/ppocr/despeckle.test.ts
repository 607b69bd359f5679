import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { srgbGrey } from '../../../../src/engines/ocr/lighting.js';
import { despeckle } from '../../../../src/engines/ocr/ppocr/despeckle.js';
import { seededRandom } from '../../../support/random.js';

/** A white RGB image with the given dark pixels. */
function image(width: number, height: number, dark: Array<[number, number]>): Uint8Array {
  const data = new Uint8Array(width * height * 3).fill(255);
  for (const [x, y] of dark) data.fill(0, (y * width + x) * 3, (y * width + x) * 3 + 3);
  return data;
}

const darkPixels = (data: Uint8Array, width: number) =>
  Array.from({ length: data.length / 3 }, (_, i) => i).filter((i) => data[i * 3] === 0).map((i) => [i % width, Math.floor(i / width)]);

/** The reference despeckle: each byte the median down of the medians across of the rows above, at and below it (edges repeated). */
function medianAcrossThenDown(data: Uint8Array, width: number, height: number): Uint8Array {
  const byte = (x: number, y: number, c: number) => data[(Math.min(height - 1, Math.max(0, y)) * width + Math.min(width - 1, Math.max(0, x))) * 3 + c]!;
  const median = (values: number[]) => values.sort((a, b) => a - b)[1]!;
  const across = (x: number, y: number, c: number) => median([byte(x - 1, y, c), byte(x, y, c), byte(x + 1, y, c)]);
  return Uint8Array.from({ length: data.length }, (_, i) => {
    const [pixel, c] = [Math.floor(i / 3), i % 3];
    const [x, y] = [pixel % width, Math.floor(pixel / width)];
    return median([across(x, y - 1, c), across(x, y, c), across(x, y + 1, c)]);
  });
}

describe('despeckle', () => {
  it('removes specks one pixel thin and keeps strokes three pixels thick', () => {
    const stroke: Array<[number, number]> = [];
    for (let x = 2; x < 12; x++) for (let y = 6; y < 9; y++) stroke.push([x, y]);
    const { despeckled: data } = despeckle(image(14, 12, [[1, 1], [10, 2], [11, 2], ...stroke]), 14, 12);
    const byRow = (a: number[], b: number[]) => a[1]! - b[1]! || a[0]! - b[0]!;
    expect(darkPixels(data, 14)).toEqual([...stroke].sort(byRow));
  });

  it('filters white paper around print as the median across and then down does everywhere', () => {
    const [width, height] = [23, 17];
    const data = image(width, height, []);
    // Print over rows 4–11 but for a white row 8, between white margins, and a dot in the last row.
    for (let y = 4; y < 12; y++) for (let i = 3 * 5; i < 3 * 15; i++) if (y !== 8) data[y * width * 3 + i] = (i * 7919 + y * 104729) % 256;
    data.fill(0, 3 * (width * 16 + 20), 3 * (width * 16 + 21));
    expect(despeckle(data, width, height).despeckled).toEqual(medianAcrossThenDown(data, width, height));
  });

  it('is the median across and then down wherever white runs start and end, whether or not the page starts on a word', () => {
    const [width, height] = [37, 29];
    for (const offset of [0, 1, 2, 3]) {
      const data = new Uint8Array(offset + width * height * 3).fill(255).subarray(offset);
      // Short dark runs of every length at every phase, between white runs of every length.
      for (let i = 0, run = 1; i < data.length; i += 2 * run, run = (run % 13) + 1) data.fill((i * 31) % 200, i, Math.min(data.length, i + run));
      for (let y = 10; y < 14; y++) data.fill(255, y * width * 3, (y + 1) * width * 3);
      expect(despeckle(data, width, height).despeckled).toEqual(medianAcrossThenDown(data, width, height));
    }
  });

  it("gives each despeckled pixel's grey as sharp's greyscale does", async () => {
    const width = 40;
    const height = 30;
    const data = Uint8Array.from({ length: width * height * 3 }, (_, i) => (i * 7919) % 256);
    const { despeckled, grey } = despeckle(data, width, height);
    const sharps = await sharp(despeckled, { raw: { width, height, channels: 3 } }).greyscale().raw().toBuffer();
    expect(Buffer.from(grey).equals(sharps)).toBe(true);
  });

  it('is the median across and then down, and each pixel its grey, at any size, whatever the bytes', () => {
    const random = seededRandom('despeckle');
    const sizes: Array<[number, number]> = [[1, 1], [1, 7], [7, 1], [2, 2], [5, 3], [16, 2], [17, 5], [33, 4], [97, 31], [160, 9]];
    for (let n = 0; n < 40; n++) sizes.push([1 + Math.floor(random() * 60), 1 + Math.floor(random() * 12)]);
    for (const [width, height] of sizes) {
      // Bytes from few values (as a page's runs of one colour), from all of them, and white but for a few.
      const sources = [() => [0, 128, 255][Math.floor(random() * 3)]!, () => Math.floor(random() * 256), () => (random() < 0.02 ? Math.floor(random() * 256) : 255)];
      for (const byte of sources) {
        const data = Uint8Array.from({ length: width * height * 3 }, byte);
        expectReference(data, width, height);
      }
    }
  });

  it('gives white paper its grey wherever sixteen white pixels start, before or after print', () => {
    const [width, height] = [53, 11];
    for (const printAt of [0, 5, 15, 16, 17, 300, width * height - 1]) {
      const data = image(width, height, []);
      for (let pixel = printAt; pixel < Math.min(width * height, printAt + 40); pixel += 3) data.fill((pixel * 37) % 256, pixel * 3, pixel * 3 + 2);
      expectReference(data, width, height);
    }
  });

  it('despeckles a small page as well after a larger one, and a page that starts inside its buffer', () => {
    const random = seededRandom('despeckle sizes');
    const bytes = (length: number) => Uint8Array.from({ length }, () => Math.floor(random() * 256));
    despeckle(bytes(300 * 200 * 3), 300, 200);
    expectReference(bytes(23 * 9 * 3), 23, 9);
    expectReference(bytes(1 + 19 * 13 * 3).subarray(1), 19, 13);
  });

  it('leaves an empty page empty', () => {
    for (const [width, height] of [[0, 0], [0, 5], [5, 0]] as const) expect(despeckle(new Uint8Array(0), width, height)).toEqual({ despeckled: new Uint8Array(0), grey: new Uint8Array(0) });
  });

  it('writes into the arrays given', () => {
    const data = Uint8Array.from({ length: 12 * 5 * 3 }, (_, i) => (i * 7919) % 256);
    const into = { despeckled: new Uint8Array(data.length), grey: new Uint8Array(12 * 5) };
    const { despeckled, grey } = despeckle(data, 12, 5, into);
    expect(despeckled).toBe(into.despeckled);
    expect(grey).toBe(into.grey);
    expect(despeckled).toEqual(medianAcrossThenDown(data, 12, 5));
  });
});

/** despeckle's pixels and greys are the reference median's and srgbGrey's of them. */
function expectReference(data: Uint8Array, width: number, height: number): void {
  const expected = medianAcrossThenDown(data, width, height);
  const { despeckled, grey } = despeckle(data, width, height);
  expect(despeckled, `${width}×${height}`).toEqual(expected);
  const greys = Uint8Array.from({ length: width * height }, (_, i) => srgbGrey(expected[i * 3]!, expected[i * 3 + 1]!, expected[i * 3 + 2]!));
  expect(grey, `${width}×${height}`).toEqual(greys);
}
