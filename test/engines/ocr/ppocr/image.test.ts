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
    const data = despeckle(image(14, 12, [[1, 1], [10, 2], [11, 2], ...stroke]), 14, 12);
    const byRow = (a: number[], b: number[]) => a[1]! - b[1]! || a[0]! - b[0]!;
    expect(darkPixels(data, 14)).toEqual([...stroke].sort(byRow));
  });
});
