/**
 * The detector's despeckle (see despeckle), in WebAssembly (despeckle.wat): sixteen bytes'
 * medians and four pixels' greys at a time, on every pixel, so that a photo, whose paper is never
 * white, costs about what a printed page does.
 */
import { SRGB_OF_LINEAR, WEIGHTED_LINEAR } from '../lighting.js';
import { DESPECKLE_WASM } from './despeckle-wasm.js';
import { instantiate, reserve, vectorRegion, type WasmMemory } from './wasm.js';

interface DespeckleModule extends WasmMemory {
  despeckle(pixelsAt: number, acrossAt: number, greysAt: number, width: number, height: number): void;
}

/** Where despeckle.wat reads the grey tables: red's, green's and blue's weighted linear light, then linear light back to sRGB. */
const WEIGHTED_LINEAR_AT = [0, 1024, 2048];
const SRGB_OF_LINEAR_AT = 3072;
/** Where the first region despeckle.wat works in starts: past the tables (4,100 bytes), on a vector. */
const REGIONS_AT = 4352;
/** Bytes past each region that despeckle.wat may read and write over (see despeckle.wat). */
const REGION_SLACK = 48;

const module = withGreyTables(instantiate<DespeckleModule>(DESPECKLE_WASM));

/** The module with lighting.ts's grey tables in its memory, where despeckle.wat reads them (little-endian, as wasm and Node's platforms are). */
function withGreyTables(despeckleModule: DespeckleModule): DespeckleModule {
  const memory = new Uint8Array(despeckleModule.memory.buffer);
  const bytesOf = (table: Float32Array | Int32Array) => new Uint8Array(table.buffer, table.byteOffset, table.byteLength);
  WEIGHTED_LINEAR.forEach((table, channel) => memory.set(bytesOf(table), WEIGHTED_LINEAR_AT[channel]));
  memory.set(bytesOf(SRGB_OF_LINEAR), SRGB_OF_LINEAR_AT);
  return despeckleModule;
}

/**
 * A 3×3 median taken as the median of three across, then of three down (each channel): like
 * the full median it removes specks and lines one pixel thin and keeps strokes, at a fifth of
 * libvips' rank filter's time (a 2×2 speck survives it, as it would not the full median; the
 * speckled fixture reads as well). Taken at the detector's scale, so a large photo costs no
 * more than a page. Each row's first and last pixel repeat themselves past the edge, as do the
 * first and last rows. With each despeckled pixel's grey (see srgbGrey), taken in the same call:
 * what the page's brightness is blurred from. Written `into` the arrays given, where they are.
 */
export function despeckle(data: Uint8Array, width: number, height: number, into?: { despeckled: Uint8Array; grey: Uint8Array }): { despeckled: Uint8Array; grey: Uint8Array } {
  const size = width * height * 3;
  const pixelsAt = REGIONS_AT;
  const acrossAt = pixelsAt + vectorRegion(size, REGION_SLACK);
  const greysAt = acrossAt + vectorRegion(size, REGION_SLACK);
  reserve(module, greysAt + vectorRegion(width * height, REGION_SLACK));
  const memory = new Uint8Array(module.memory.buffer);
  memory.set(data.subarray(0, size), pixelsAt);
  module.despeckle(pixelsAt, acrossAt, greysAt, width, height);
  const despeckled = into?.despeckled ?? new Uint8Array(size);
  const grey = into?.grey ?? new Uint8Array(width * height);
  despeckled.set(memory.subarray(pixelsAt, pixelsAt + size));
  grey.set(memory.subarray(greysAt, greysAt + width * height));
  return { despeckled, grey };
}
