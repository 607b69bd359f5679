/**
 * What the skew search of orientation.ts measures, in WebAssembly (skew.wat): the text pixels of
 * the detector's map, sampled as points, and how sharply they pile up projected in each direction
 * tried (Postl's projection profiles). The points stay in the module's memory between the two.
 */
import type { DetectionInput } from './detect.js';
import { SKEW_WASM } from './skew-wasm.js';
import { instantiate, reserve, type WasmMemory } from './wasm.js';

/** The map is judged at this longest side, one bin a unit: lines of text stay lines, and a page costs milliseconds. */
const PROFILE_SIDE = 640;
/** Text pixels used at most: a sample, evenly spread, of a dense page's. */
const MAX_TEXT_PIXELS = 20_000;
/** Directions profiled in one call at most: more than the skew search tries at once. */
const MAX_DIRECTIONS = 128;

/** skew.wat's exports: addresses in bytes, lengths in elements. */
interface SkewModule extends WasmMemory {
  countAbove(map: number, length: number, threshold: number): number;
  sample(map: number, width: number, height: number, threshold: number, every: number, most: number, kx: number, ky: number, points: number): number;
  sharpness(points: number, count: number, reach: number, cosSin: number, directions: number, terms: number, profiles: number, bins: number, energies: number): void;
}

const module = instantiate<SkewModule>(SKEW_WASM);

/**
 * The module's memory: the points (y then x, doubles), the directions (cosine then sine) and
 * their energies, the terms of a pass of skew.wat's sharpness (112 bytes), then the map while it
 * is sampled, and the profiles after.
 */
const POINTS_AT = 0;
const DIRECTIONS_AT = POINTS_AT + 16 * MAX_TEXT_PIXELS;
const ENERGIES_AT = DIRECTIONS_AT + 16 * MAX_DIRECTIONS;
const TERMS_AT = ENERGIES_AT + 16 * MAX_DIRECTIONS;
const SCRATCH_AT = TERMS_AT + 112;

/** The text pixels of a map, as points about the page's centre at PROFILE_SIDE, in the module's memory until the next map's. */
export interface TextPixels {
  count: number;
  /** Every projection lies within this of the centre. */
  reach: number;
  /** The bins of each profile: one a unit, each side of the centre out to the reach, and one for a point's share past it. */
  bins: number;
}

/** How sharply the text piles up projected across lines running in a direction, and across lines at right angles to them. */
export interface Sharpness {
  across: number;
  along: number;
}

/** The text pixels of the detector's map (those above `threshold`), or the first of every so many of a dense page's. */
export function textPixels(probability: Float32Array, input: DetectionInput, threshold: number): TextPixels {
  const { width, height, scaleX, scaleY } = input;
  // Map pixels to page pixels (the map's sides were rounded to multiples of 32 apart), then to PROFILE_SIDE.
  const unit = PROFILE_SIDE / Math.max(width * scaleX, height * scaleY);
  const [kx, ky] = [scaleX * unit, scaleY * unit];
  reserve(module, SCRATCH_AT + probability.byteLength);
  new Float32Array(module.memory.buffer, SCRATCH_AT, probability.length).set(probability);
  const above = module.countAbove(SCRATCH_AT, probability.length, threshold);
  const every = Math.max(1, Math.ceil(above / MAX_TEXT_PIXELS));
  // Each pixel stands for a point anywhere in its square (a fixed pseudo-random one): pixel
  // centres projected level would pile up row by row, and win over every tilted direction.
  const count = module.sample(SCRATCH_AT, width, height, threshold, every, Math.ceil(above / every), kx, ky, POINTS_AT);
  const reach = Math.hypot(width * kx, height * ky) / 2 + 1;
  return { count, reach, bins: Math.ceil(2 * reach) + 2 };
}

/**
 * The sharpness of `text` projected in each of `directions` (degrees clockwise): the energy of
 * each profile's steps, each point shared between the two bins it falls between.
 */
export function sharpness(text: TextPixels, directions: readonly number[]): Sharpness[] {
  if (directions.length > MAX_DIRECTIONS) throw new RangeError(`at most ${MAX_DIRECTIONS} directions at once`);
  reserve(module, SCRATCH_AT + 4 * 8 * text.bins);
  const cosSin = new Float64Array(module.memory.buffer, DIRECTIONS_AT, 2 * directions.length);
  directions.forEach((degrees, i) => {
    const radians = (degrees * Math.PI) / 180;
    cosSin[2 * i] = Math.cos(radians);
    cosSin[2 * i + 1] = Math.sin(radians);
  });
  module.sharpness(POINTS_AT, text.count, text.reach, DIRECTIONS_AT, directions.length, TERMS_AT, SCRATCH_AT, text.bins, ENERGIES_AT);
  const energies = new Float64Array(module.memory.buffer, ENERGIES_AT, 2 * directions.length);
  return directions.map((_, i) => ({ across: energies[2 * i]!, along: energies[2 * i + 1]! }));
}
