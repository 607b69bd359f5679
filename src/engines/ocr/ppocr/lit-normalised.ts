/**
 * The detector's input tensor, written in WebAssembly (lit-normalised.wat): each pixel evenly lit
 * (divided by its brightness, as lighting.ts's lightEvenly does) and normalised as the model was
 * trained, four pixels at a time, so that a photo, whose pixels are rarely alike, costs about
 * what a printed page does.
 */
import { EVEN_GAIN } from '../lighting.js';
import { LIT_NORMALISED_WASM } from './lit-normalised-wasm.js';
import { instantiate, reserve, type WasmMemory } from './wasm.js';

interface LitNormalisedModule extends WasmMemory {
  litNormalised(
    pixels: number,
    brightness: number,
    planes: number,
    plane: number,
    count: number,
    ...normalisation: [number, number, number, number, number, number]
  ): void;
}

/** The model's training normalisation, ((v / 255) − mean) / deviation, of its input planes in order (blue, green, red). */
const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

/** Each plane's normalisation as lit-normalised.wat takes it: v × scale − shift. */
const NORMALISATION = [0, 1, 2].flatMap((plane) => [1 / (255 * STD[plane]!), MEAN[plane]! / STD[plane]!]) as [number, number, number, number, number, number];

/** Where lit-normalised.wat reads the gains, and where the first region it works in starts: past them, on a vector. */
const GAINS_AT = 0;
const REGIONS_AT = 2048;
/** Bytes lit-normalised.wat reads past the pixels' last, and past the brightnesses' (see lit-normalised.wat). */
const PIXELS_SLACK = 16;
const BRIGHTNESS_SLACK = 4;

const module = withGains(instantiate<LitNormalisedModule>(LIT_NORMALISED_WASM));

/** The module with lighting.ts's gains in its memory, where lit-normalised.wat reads them. */
function withGains(litModule: LitNormalisedModule): LitNormalisedModule {
  new Float64Array(litModule.memory.buffer, GAINS_AT, EVEN_GAIN.length).set(EVEN_GAIN);
  return litModule;
}

/** `bytes` rounded up to whole vectors, so that the region after starts on one. */
const vectors = (bytes: number) => Math.ceil(bytes / 16) * 16;

/**
 * The RGB pixels of `data`, each with its `brightness`, evenly lit (each byte times EVEN_GAIN of
 * its brightness, clipped to a byte) and normalised as the model was trained into the blue, green
 * and red planes of `tensor`.
 */
export function writeLitNormalised(data: Uint8Array, brightness: Uint8Array, tensor: Float32Array): void {
  const count = brightness.length;
  const pixelsAt = REGIONS_AT;
  const brightnessAt = pixelsAt + vectors(3 * count + PIXELS_SLACK);
  const planesAt = brightnessAt + vectors(count + BRIGHTNESS_SLACK);
  const plane = vectors(4 * count);
  reserve(module, planesAt + 3 * plane);
  const memory = new Uint8Array(module.memory.buffer);
  memory.set(data.subarray(0, 3 * count), pixelsAt);
  memory.set(brightness, brightnessAt);
  module.litNormalised(pixelsAt, brightnessAt, planesAt, plane, count, ...NORMALISATION);
  for (let channel = 0; channel < 3; channel++) {
    tensor.set(new Float32Array(module.memory.buffer, planesAt + channel * plane, count), channel * count);
  }
}
