/**
 * The detector's input tensor, written in WebAssembly (lit-normalised.wat): each pixel evenly lit
 * (divided by its brightness, as lighting.ts's lightEvenly does) and normalised as the model was
 * trained, four pixels at a time, so that a photo, whose pixels are rarely alike, costs about
 * what a printed page does.
 */
import { EVEN_GAIN } from '../lighting.js';
import { LIT_NORMALISED_WASM } from './lit-normalised-wasm.js';
import { instantiate, reserve, vectorRegion, type WasmMemory } from './wasm.js';

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

/**
 * Pixels lit and normalised at a time: the module's memory stays small (about a megabyte,
 * however large the page) and what it is given and gives back stays in the cache.
 */
const CHUNK = 65536;

/** Where lit-normalised.wat reads the gains, then where it reads a chunk's pixels and brightnesses and writes its planes (each on a vector). */
const GAINS_AT = 0;
const PIXELS_AT = 2048;
/** Bytes lit-normalised.wat reads past the pixels' last, and past the brightnesses' (see lit-normalised.wat). */
const PIXELS_SLACK = 16;
const BRIGHTNESS_SLACK = 4;
const BRIGHTNESS_AT = PIXELS_AT + vectorRegion(3 * CHUNK, PIXELS_SLACK);
const PLANES_AT = BRIGHTNESS_AT + vectorRegion(CHUNK, BRIGHTNESS_SLACK);
const PLANE_BYTES = 4 * CHUNK;

const module = withGains(instantiate<LitNormalisedModule>(LIT_NORMALISED_WASM));
const memory = new Uint8Array(module.memory.buffer);
const planes = [0, 1, 2].map((channel) => new Float32Array(module.memory.buffer, PLANES_AT + channel * PLANE_BYTES, CHUNK));

/** The module, its memory as large as a chunk needs, with lighting.ts's gains where lit-normalised.wat reads them. */
function withGains(litModule: LitNormalisedModule): LitNormalisedModule {
  reserve(litModule, PLANES_AT + 3 * PLANE_BYTES);
  new Float64Array(litModule.memory.buffer, GAINS_AT, EVEN_GAIN.length).set(EVEN_GAIN);
  return litModule;
}

/**
 * The RGB pixels of `data`, each with its `brightness`, evenly lit (each byte times EVEN_GAIN of
 * its brightness, clipped to a byte) and normalised as the model was trained into the blue, green
 * and red planes of `tensor`, a chunk at a time.
 */
export function writeLitNormalised(data: Uint8Array, brightness: Uint8Array, tensor: Float32Array): void {
  const count = brightness.length;
  for (let from = 0; from < count; from += CHUNK) {
    const pixels = Math.min(CHUNK, count - from);
    memory.set(data.subarray(3 * from, 3 * (from + pixels)), PIXELS_AT);
    memory.set(brightness.subarray(from, from + pixels), BRIGHTNESS_AT);
    module.litNormalised(PIXELS_AT, BRIGHTNESS_AT, PLANES_AT, PLANE_BYTES, pixels, ...NORMALISATION);
    planes.forEach((plane, channel) => tensor.set(plane.subarray(0, pixels), channel * count + from));
  }
}
