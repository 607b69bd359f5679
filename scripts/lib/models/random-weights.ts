/**
 * Deterministic pseudo-random tensor data shared by the test-model makers (GGUF for the LLM,
 * legacy GGML for whisper.cpp): the same seed and tensor name always give the same bytes.
 */
import { GgmlType, encodeF16, encodeF32, quantizeQ8_0, type GgufTensorSpec } from './gguf.js';

/** 32-bit FNV-1a of a string, mixed with a seed: an independent stream per tensor. */
function streamSeed(seed: number, name: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Std-dev of a sum of four uniform bytes (Irwin–Hall, n = 4): sqrt(4 · (256² − 1) / 12). */
const BYTE_SUM_STD = Math.sqrt((4 * (256 * 256 - 1)) / 12);

/**
 * Fills `out[0..n)` with mean + std · z, z approximately standard normal: the centred, scaled sum
 * of the four bytes of one xorshift32 output. Statistical quality hardly matters for random
 * weights, speed does (hundreds of millions of values). `state` must be non-zero; returns the
 * state to continue from.
 */
function fillNormal(out: Float32Array, n: number, state: number, mean: number, std: number): number {
  const scale = std / BYTE_SUM_STD;
  let x = state | 0;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    let sum = (x & 0x00ff00ff) + ((x >>> 8) & 0x00ff00ff); // two 16-bit lanes of byte pair sums
    sum = (sum & 0xffff) + (sum >>> 16);
    out[i] = mean + (sum - 510) * scale;
  }
  return x;
}

export interface TensorPlan extends GgufTensorSpec {
  mean: number;
  std: number;
}

/** Elements generated per chunk (a multiple of 32, so Q8_0 blocks never straddle chunks). */
export const CHUNK_ELEMENTS = 1 << 20;

/** Reusable buffers for one writer; F32 is the widest encoding of a chunk. */
export function newScratch(): { values: Float32Array; bytes: Uint8Array } {
  return { values: new Float32Array(CHUNK_ELEMENTS), bytes: new Uint8Array(CHUNK_ELEMENTS * 4) };
}

/** Yields a tensor's bytes chunk by chunk, reusing the same two buffers. */
export function* tensorChunks(
  plan: TensorPlan,
  seed: number,
  scratch: { values: Float32Array; bytes: Uint8Array },
): Generator<Uint8Array> {
  const total = plan.dims.reduce((a, b) => a * b, 1);
  let state = streamSeed(seed, plan.name) || 1;
  for (let done = 0; done < total; done += CHUNK_ELEMENTS) {
    const n = Math.min(CHUNK_ELEMENTS, total - done);
    const values = scratch.values.subarray(0, n);
    state = fillNormal(values, n, state, plan.mean, plan.std);
    let length: number;
    switch (plan.type) {
      case GgmlType.Q8_0:
        length = quantizeQ8_0(values, scratch.bytes);
        break;
      case GgmlType.F16:
        length = encodeF16(values, scratch.bytes);
        break;
      case GgmlType.F32:
        length = encodeF32(values, scratch.bytes);
        break;
      default:
        throw new Error(`cannot generate ${GgmlType[plan.type]} tensors`);
    }
    yield scratch.bytes.subarray(0, length);
  }
}
