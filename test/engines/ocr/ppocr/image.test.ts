import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { despeckle } from '../../../../src/engines/ocr/ppocr/image.js';

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
});
