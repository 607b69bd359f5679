import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { readUpright } from '../../../../src/engines/ocr/tesseract/orientation.js';
import type { QuarterTurn } from '../../../../src/engines/ocr/plane.js';
import type { OcrPage } from '../../../../src/engines/types.js';

/** A reader whose confidence depends only on the turn, recording every read. */
function reader(confidenceByTurn: Record<QuarterTurn, number>) {
  const reads: Array<{ rotation: number; width: number }> = [];
  const read = async (image: Buffer, rotation: number): Promise<OcrPage> => {
    const { width = 0 } = await sharp(image).metadata();
    reads.push({ rotation, width });
    const confidence = confidenceByTurn[rotation as QuarterTurn];
    return { text: `turn ${rotation}`, words: [], width, height: 10, confidence, rotation, deskewRadians: 0 };
  };
  return { read, reads };
}

const page = (width: number) => sharp({ create: { width, height: 100, channels: 3, background: 'white' } }).png().toBuffer();

describe('reading pages upright', () => {
  it('takes a confident reading as it comes, without trying turns', async () => {
    const { read, reads } = reader({ 0: 85, 90: 0, 180: 0, 270: 0 });
    expect((await readUpright(await page(800), read)).rotation).toBe(0);
    expect(reads).toHaveLength(1);
  });

  it('turns a poor reading to the clearly most confident quarter turn; a small page is its own probe', async () => {
    const { read, reads } = reader({ 0: 20, 90: 10, 180: 80, 270: 30 });
    const result = await readUpright(await page(800), read);
    expect(result).toMatchObject({ rotation: 180, confidence: 80 });
    expect(reads.map((r) => r.rotation)).toEqual([0, 0, 90, 180, 270]);
  });

  it('probes a large page downscaled, then reads the winning turn at full size', async () => {
    const { read, reads } = reader({ 0: 30, 90: 75, 180: 5, 270: 20 });
    const result = await readUpright(await page(2400), read);
    expect(result.rotation).toBe(90);
    expect(reads.map((r) => [r.rotation, r.width])).toEqual([
      [0, 2400],
      [0, 2400],
      [90, 1000],
      [180, 1000],
      [270, 1000],
      [90, 2400],
    ]);
  });

  it('takes the denoised reading when it is good, without trying turns', async () => {
    const confidences = [22, 60];
    let calls = 0;
    const result = await readUpright(await page(800), async (_image, rotation) => ({
      text: '',
      words: [],
      width: 800,
      height: 100,
      confidence: confidences[calls++]!,
      rotation,
      deskewRadians: 0,
    }));
    expect(result.confidence).toBe(60);
    expect(calls).toBe(2);
  });

  it('keeps the page as it comes when no turn is clearly better', async () => {
    const { read } = reader({ 0: 40, 90: 45, 180: 30, 270: 50 });
    expect((await readUpright(await page(800), read)).rotation).toBe(0);
  });
});
