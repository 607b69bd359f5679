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

describe('despeckle', () => {
  it('removes specks one pixel thin and keeps strokes three pixels thick', () => {
    const stroke: Array<[number, number]> = [];
    for (let x = 2; x < 12; x++) for (let y = 6; y < 9; y++) stroke.push([x, y]);
    const { despeckled: data } = despeckle(image(14, 12, [[1, 1], [10, 2], [11, 2], ...stroke]), 14, 12);
    const byRow = (a: number[], b: number[]) => a[1]! - b[1]! || a[0]! - b[0]!;
    expect(darkPixels(data, 14)).toEqual([...stroke].sort(byRow));
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
