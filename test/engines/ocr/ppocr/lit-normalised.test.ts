import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../../../scripts/lib/paths.js';
import { EVEN_GAIN } from '../../../../src/engines/ocr/lighting.js';
import { decodeRgb, detectorView } from '../../../../src/engines/ocr/ppocr/image.js';
import { writeLitNormalised } from '../../../../src/engines/ocr/ppocr/lit-normalised.js';

const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

/** The tensor by definition, in JavaScript: each byte times its pixel's gain, clipped to a byte, normalised into BGR planes. */
function litNormalisedInJs(data: Uint8Array, brightness: Uint8Array): Float32Array {
  const count = brightness.length;
  const tensor = new Float32Array(3 * count);
  for (let plane = 0; plane < 3; plane++) {
    const [scale, shift] = [1 / (255 * STD[plane]!), MEAN[plane]! / STD[plane]!];
    for (let i = 0; i < count; i++) {
      const value = data[3 * i + 2 - plane]!;
      tensor[plane * count + i] = (Math.min(255, value * EVEN_GAIN[brightness[i]!]!) | 0) * scale - shift;
    }
  }
  return tensor;
}

/** The bits of each float, so that two tensors compare bit for bit. */
const bits = (tensor: Float32Array) => new Uint32Array(tensor.buffer, tensor.byteOffset, tensor.length);

function written(data: Uint8Array, brightness: Uint8Array): Float32Array {
  // Written over a tensor holding something else, as a spare one does.
  const tensor = new Float32Array(3 * brightness.length).fill(Number.NaN);
  writeLitNormalised(data, brightness, tensor);
  return tensor;
}

describe("the detector's input, lit and normalised in WebAssembly", () => {
  it('has the bits of the JavaScript definition for every byte at every brightness', () => {
    const count = 256 * 256;
    const brightness = Uint8Array.from({ length: count }, (_, i) => i >> 8);
    const data = Uint8Array.from({ length: 3 * count }, (_, k) => ((k / 3) | 0) + 85 * (k % 3));
    expect(bits(written(data, brightness))).toEqual(bits(litNormalisedInJs(data, brightness)));
  });

  it('writes four pixels like the four before as those were, and four that differ from them in any one byte or brightness anew', () => {
    // Paper in fours, each group after the first changed in one of its twelve bytes or four brightnesses, then paper again.
    const groups = 1 + 2 * 16;
    const data = new Uint8Array(3 * 4 * groups).fill(200);
    const brightness = new Uint8Array(4 * groups).fill(230);
    for (let change = 0; change < 16; change++) {
      const group = 1 + 2 * change;
      if (change < 12) data[3 * 4 * group + change] = 90;
      else brightness[4 * group + change - 12] = 120;
    }
    expect(bits(written(data, brightness))).toEqual(bits(litNormalisedInJs(data, brightness)));
  });

  it('writes the first four pixels whatever they are: black, at no brightness or full brightness', () => {
    for (const lit of [0, 255]) {
      const data = new Uint8Array(3 * 8);
      const brightness = new Uint8Array(8).fill(lit);
      expect(bits(written(data, brightness)), `brightness ${lit}`).toEqual(bits(litNormalisedInJs(data, brightness)));
    }
  });

  it('writes pixels past the last whole vector, and as many as it is given, of any count, in one chunk or several', () => {
    for (const count of [1, 2, 3, 5, 7, 13, 1000, 4099, 65536, 65541, 3 * 65536 - 1]) {
      const data = Uint8Array.from({ length: 3 * count }, (_, i) => (i * 2654435761) >>> 24);
      const brightness = Uint8Array.from({ length: count }, (_, i) => ((i + 7) * 40503) >>> 8);
      expect(bits(written(data, brightness)), `${count} pixels`).toEqual(bits(litNormalisedInJs(data, brightness)));
    }
  });

  it('has the bits of the JavaScript definition on a page and a photo as the detector sees them, a larger after a smaller', async () => {
    for (const [file, side] of [['ocr/a4/en-pathology-150dpi.png', 320], ['photos/np2016_bloodtestreport1.jpg', 640]] as const) {
      const image = await decodeRgb(await readFile(fixturePath(...(file.split('/') as [string, ...string[]]))));
      const scale = side / Math.max(image.width, image.height);
      const [width, height] = [Math.round((image.width * scale) / 32) * 32, Math.round((image.height * scale) / 32) * 32];
      const { despeckled, brightness } = await detectorView(image, width, height);
      expect(bits(written(despeckled.data, brightness)), file).toEqual(bits(litNormalisedInJs(despeckled.data, brightness)));
    }
  });
});
