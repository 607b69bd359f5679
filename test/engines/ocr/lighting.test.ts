import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { srgbGrey } from '../../../src/engines/ocr/lighting.js';

describe('srgbGrey', () => {
  it("is sharp's greyscale for every one of the 2^24 colours", async () => {
    const side = 4096;
    const colours = new Uint8Array(side * side * 3);
    for (let i = 0; i < side * side; i++) colours.set([i >> 16, (i >> 8) & 255, i & 255], 3 * i);
    const sharps = await sharp(colours, { raw: { width: side, height: side, channels: 3 } }).greyscale().raw().toBuffer();
    let differing = 0;
    for (let i = 0; i < side * side; i++) if (srgbGrey(i >> 16, (i >> 8) & 255, i & 255) !== sharps[i]) differing++;
    expect(differing).toBe(0);
  });
});
