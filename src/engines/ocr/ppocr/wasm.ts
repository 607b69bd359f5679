/** Loading the hand-written WebAssembly modules (see scripts/lib/wasm.ts) and growing their memory. */

/** The little of the WebAssembly API used here: its types come with TypeScript's DOM library, which the gateway does not load. */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

/** What every module here exports: its one memory. */
export interface WasmMemory {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
}

/** The module whose bytes are `base64`, instantiated, with its exports typed as `T`. */
export function instantiate<T extends WasmMemory>(base64: string): T {
  const { Instance, Module } = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
  return new Instance(new Module(Buffer.from(base64, 'base64'))).exports as T;
}

const WASM_PAGE = 65536;

/** Grows `module`'s memory to at least `bytes` (views taken of it before then are detached). */
export function reserve(module: WasmMemory, bytes: number): void {
  const missing = bytes - module.memory.buffer.byteLength;
  if (missing > 0) module.memory.grow(Math.ceil(missing / WASM_PAGE));
}

/** Bytes in a SIMD vector: each region of a module's memory starts on one. */
const VECTOR = 16;

/**
 * The room a region of a module's memory takes: its `bytes` and the `slack` past them its code
 * may read or write over, rounded up to whole vectors, so that the region after starts on one.
 */
export function vectorRegion(bytes: number, slack = 0): number {
  return Math.ceil((bytes + slack) / VECTOR) * VECTOR;
}
