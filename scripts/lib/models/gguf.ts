/**
 * A small, dependency-free reader and writer for GGUF v3 files, the container format of
 * ggml / llama.cpp models.
 *
 * Layout (all integers little-endian, counts and lengths 64-bit):
 *
 *   magic "GGUF" | version u32 | tensor count u64 | KV count u64
 *   KV pairs:     key (string) | value type u32 | value
 *                 (an array value is: item type u32 | item count u64 | items)
 *   tensor infos: name (string) | n_dims u32 | ne[0..n_dims) u64 | ggml type u32 | offset u64
 *   padding to the alignment, then the tensor data section; every tensor starts at an offset
 *   (relative to the data section) that is a multiple of the alignment.
 *
 * Strings are a u64 byte length followed by UTF-8 bytes (no terminator). The alignment is the
 * u32 KV `general.alignment` when present (a power of two), 32 otherwise.
 *
 * Like ggml's own gguf.cpp this module rejects arrays of arrays (the spec allows them, but
 * llama.cpp cannot load them), duplicate keys, duplicate tensor names and tensors whose data
 * is not laid out back to back in order — so whatever it writes, llama.cpp can read.
 *
 * Dimensions follow ggml's order: `dims[0]` is the innermost (contiguous) dimension, so a
 * weight matrix that maps n_in → n_out features has `dims = [n_in, n_out]`.
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

export const GGUF_MAGIC = 0x46554747; // "GGUF" read as a little-endian u32
export const GGUF_VERSION = 3;
export const GGUF_DEFAULT_ALIGNMENT = 32;
export const GGUF_ALIGNMENT_KEY = 'general.alignment';

/** Types of metadata values (gguf_type in ggml). */
export enum GgufValueType {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
}

/** Tensor element types (ggml_type). Only the ones with a known block layout are listed. */
export enum GgmlType {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  I8 = 24,
  I16 = 25,
  I32 = 26,
  I64 = 27,
  F64 = 28,
  BF16 = 30,
}

/** Elements per block and bytes per block of each known tensor type (ggml's type_traits). */
const TYPE_LAYOUT: ReadonlyMap<number, { blockSize: number; typeSize: number }> = new Map([
  [GgmlType.F32, { blockSize: 1, typeSize: 4 }],
  [GgmlType.F16, { blockSize: 1, typeSize: 2 }],
  [GgmlType.Q4_0, { blockSize: 32, typeSize: 18 }],
  [GgmlType.Q4_1, { blockSize: 32, typeSize: 20 }],
  [GgmlType.Q5_0, { blockSize: 32, typeSize: 22 }],
  [GgmlType.Q5_1, { blockSize: 32, typeSize: 24 }],
  [GgmlType.Q8_0, { blockSize: 32, typeSize: 34 }],
  [GgmlType.Q8_1, { blockSize: 32, typeSize: 36 }],
  [GgmlType.Q2_K, { blockSize: 256, typeSize: 84 }],
  [GgmlType.Q3_K, { blockSize: 256, typeSize: 110 }],
  [GgmlType.Q4_K, { blockSize: 256, typeSize: 144 }],
  [GgmlType.Q5_K, { blockSize: 256, typeSize: 176 }],
  [GgmlType.Q6_K, { blockSize: 256, typeSize: 210 }],
  [GgmlType.Q8_K, { blockSize: 256, typeSize: 292 }],
  [GgmlType.I8, { blockSize: 1, typeSize: 1 }],
  [GgmlType.I16, { blockSize: 1, typeSize: 2 }],
  [GgmlType.I32, { blockSize: 1, typeSize: 4 }],
  [GgmlType.I64, { blockSize: 1, typeSize: 8 }],
  [GgmlType.F64, { blockSize: 1, typeSize: 8 }],
  [GgmlType.BF16, { blockSize: 1, typeSize: 2 }],
]);

// ---------------------------------------------------------------------------------------------
// Metadata values
// ---------------------------------------------------------------------------------------------

/** Value types stored as a JS number. */
export type GgufNumberType =
  | GgufValueType.UINT8
  | GgufValueType.INT8
  | GgufValueType.UINT16
  | GgufValueType.INT16
  | GgufValueType.UINT32
  | GgufValueType.INT32
  | GgufValueType.FLOAT32
  | GgufValueType.FLOAT64;
/** Value types stored as a JS bigint. */
export type GgufBigIntType = GgufValueType.UINT64 | GgufValueType.INT64;
/** Every value type except ARRAY. */
export type GgufScalarType = GgufNumberType | GgufBigIntType | GgufValueType.BOOL | GgufValueType.STRING;

/** A metadata value: its GGUF type travels with it, so a read file can be written back unchanged. */
export type GgufValue =
  | { type: GgufNumberType; value: number }
  | { type: GgufBigIntType; value: bigint }
  | { type: GgufValueType.BOOL; value: boolean }
  | { type: GgufValueType.STRING; value: string }
  | GgufArrayValue;

/** An array of scalars (arrays of arrays are not supported by llama.cpp, nor here). */
export type GgufArrayValue =
  | { type: GgufValueType.ARRAY; itemType: GgufNumberType; value: number[] }
  | { type: GgufValueType.ARRAY; itemType: GgufBigIntType; value: bigint[] }
  | { type: GgufValueType.ARRAY; itemType: GgufValueType.BOOL; value: boolean[] }
  | { type: GgufValueType.ARRAY; itemType: GgufValueType.STRING; value: string[] };

/** Ordered key → value metadata (insertion order is the order written to the file). */
export type GgufMetadata = Map<string, GgufValue>;

/** Constructors for typed metadata values, e.g. `kv.u32(2048)`, `kv.arr(GgufValueType.STRING, tokens)`. */
export const kv = {
  u8: (value: number): GgufValue => ({ type: GgufValueType.UINT8, value }),
  i8: (value: number): GgufValue => ({ type: GgufValueType.INT8, value }),
  u16: (value: number): GgufValue => ({ type: GgufValueType.UINT16, value }),
  i16: (value: number): GgufValue => ({ type: GgufValueType.INT16, value }),
  u32: (value: number): GgufValue => ({ type: GgufValueType.UINT32, value }),
  i32: (value: number): GgufValue => ({ type: GgufValueType.INT32, value }),
  f32: (value: number): GgufValue => ({ type: GgufValueType.FLOAT32, value }),
  f64: (value: number): GgufValue => ({ type: GgufValueType.FLOAT64, value }),
  u64: (value: bigint | number): GgufValue => ({ type: GgufValueType.UINT64, value: BigInt(value) }),
  i64: (value: bigint | number): GgufValue => ({ type: GgufValueType.INT64, value: BigInt(value) }),
  bool: (value: boolean): GgufValue => ({ type: GgufValueType.BOOL, value }),
  str: (value: string): GgufValue => ({ type: GgufValueType.STRING, value }),
  arr: arrayValue,
};

function arrayValue(itemType: GgufNumberType, value: number[]): GgufValue;
function arrayValue(itemType: GgufBigIntType, value: bigint[]): GgufValue;
function arrayValue(itemType: GgufValueType.BOOL, value: boolean[]): GgufValue;
function arrayValue(itemType: GgufValueType.STRING, value: string[]): GgufValue;
function arrayValue(itemType: GgufScalarType, value: unknown[]): GgufValue {
  return { type: GgufValueType.ARRAY, itemType, value } as GgufValue;
}

// ---------------------------------------------------------------------------------------------
// Tensors
// ---------------------------------------------------------------------------------------------

/** What the writer needs to know about a tensor before its data. */
export interface GgufTensorSpec {
  name: string;
  /** ggml order: dims[0] is the contiguous dimension. 1 to 4 entries. */
  dims: readonly number[];
  type: GgmlType;
}

/** A tensor as described in a file's header. */
export interface GgufTensorInfo extends GgufTensorSpec {
  /** Offset of the tensor's data relative to the start of the data section. */
  offset: number;
  /** Size of the tensor's data in bytes (without alignment padding); undefined for unknown types. */
  byteLength: number | undefined;
}

/** Bytes taken by a tensor of this type and shape (without alignment padding). */
export function tensorByteLength(type: GgmlType, dims: readonly number[]): number {
  const layout = TYPE_LAYOUT.get(type);
  if (layout === undefined) throw new GgufError(`unsupported ggml type ${type}`);
  const [rowLength = 1] = dims;
  if (rowLength % layout.blockSize !== 0) {
    throw new GgufError(
      `row length ${rowLength} of a ${GgmlType[type]} tensor is not a multiple of its block size ${layout.blockSize}`,
    );
  }
  const elements = dims.reduce((product, n) => product * n, 1);
  const bytes = (elements / layout.blockSize) * layout.typeSize;
  if (!Number.isSafeInteger(bytes)) throw new GgufError(`tensor of shape [${dims.join(', ')}] is too large`);
  return bytes;
}

/** Rounds `n` up to a multiple of `alignment`. */
export function alignTo(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

export class GgufError extends Error {
  override name = 'GgufError';
}

// ---------------------------------------------------------------------------------------------
// Half precision and Q8_0
// ---------------------------------------------------------------------------------------------

/** Typed-array views are host-endian; GGUF data is little-endian. */
function assertLittleEndian(): void {
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new GgufError('big-endian hosts are not supported');
}

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/** IEEE 754 binary16 bits of `value` (rounded to nearest, ties to even; overflow gives ±Inf). */
export function f32ToF16Bits(value: number): number {
  f32Scratch[0] = value;
  return halfFromFloatBits(u32Scratch[0]!);
}

/** binary16 bits of the binary32 number whose bits are `x`. */
function halfFromFloatBits(x: number): number {
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  const mantissa = x & 0x7fffff;

  if (exponent === 0xff) return sign | 0x7c00 | (mantissa !== 0 ? 0x200 | (mantissa >>> 13) : 0);

  const halfExponent = exponent - 127 + 15;
  if (halfExponent >= 0x1f) return sign | 0x7c00;

  if (halfExponent <= 0) {
    // Subnormal half (or zero): the value in units of 2^-24.
    const shift = 126 - exponent;
    if (shift > 24) return sign;
    const m = mantissa | 0x800000;
    let half = m >>> shift;
    const remainder = m & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (remainder > halfway || (remainder === halfway && (half & 1) !== 0)) half += 1;
    return sign | half;
  }

  let half = (halfExponent << 10) | (mantissa >>> 13);
  const remainder = mantissa & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (up to Inf).
  if (remainder > 0x1000 || (remainder === 0x1000 && (half & 1) !== 0)) half += 1;
  return sign | half;
}

/** The number encoded by IEEE 754 binary16 bits. */
export function f16BitsToF32(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** Elements per Q8_0 block, and bytes per block (an f16 scale then 32 int8). */
export const Q8_0_BLOCK = 32;
export const Q8_0_BLOCK_BYTES = 34;

/**
 * Quantizes `src` (a multiple of 32 values) into Q8_0 blocks at `dst[dstOffset..]`, exactly like
 * ggml's quantize_row_q8_0_ref: d = max|x| / 127 stored as f16, q = roundf(x / d) as int8
 * (computed in float32 as x * (1/d)). Returns the number of bytes written.
 */
export function quantizeQ8_0(src: Float32Array, dst: Uint8Array, dstOffset = 0): number {
  if (src.length % Q8_0_BLOCK !== 0) throw new GgufError(`Q8_0 needs a multiple of 32 values, got ${src.length}`);
  const blocks = src.length / Q8_0_BLOCK;
  const bytes = blocks * Q8_0_BLOCK_BYTES;
  if (dstOffset + bytes > dst.length) throw new GgufError('Q8_0 destination buffer too small');
  let out = dstOffset;
  for (let start = 0; start < src.length; start += Q8_0_BLOCK) {
    const end = start + Q8_0_BLOCK;
    let amax = 0;
    for (let i = start; i < end; i++) amax = Math.max(amax, Math.abs(src[i]!));
    const d = Math.fround(amax / 127);
    const id = d !== 0 ? Math.fround(1 / d) : 0;
    const dBits = f32ToF16Bits(d);
    dst[out] = dBits & 0xff;
    dst[out + 1] = dBits >>> 8;
    out += 2;
    for (let i = start; i < end; i++) {
      const x = Math.fround(src[i]! * id); // |x| <= 127 (+ rounding)
      // roundf(x) without Math.round (slow on some CPUs): floor(x + 0.5) via truncation of a
      // positive number, exact in double for float x; ties of negatives go away from zero.
      const shifted = x + 128.5;
      let q = (shifted | 0) - 128;
      if (q + 128 === shifted && x < 0) q -= 1;
      dst[out++] = q; // two's complement int8: Uint8Array keeps the low 8 bits
    }
  }
  return bytes;
}

/** Inverse of quantizeQ8_0 (for tests and inspection). */
export function dequantizeQ8_0(src: Uint8Array, count: number): Float32Array {
  const out = new Float32Array(count);
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  for (let b = 0; b * Q8_0_BLOCK < count; b++) {
    const base = b * Q8_0_BLOCK_BYTES;
    const d = f16BitsToF32(view.getUint16(base, true));
    for (let j = 0; j < Q8_0_BLOCK && b * Q8_0_BLOCK + j < count; j++) {
      out[b * Q8_0_BLOCK + j] = d * view.getInt8(base + 2 + j);
    }
  }
  return out;
}

/** Writes `src` as little-endian f16 into `dst[dstOffset..]`; returns the bytes written. */
export function encodeF16(src: Float32Array, dst: Uint8Array, dstOffset = 0): number {
  assertLittleEndian();
  const bytes = src.length * 2;
  if (dstOffset + bytes > dst.length) throw new GgufError('F16 destination buffer too small');
  const bits = new Uint32Array(src.buffer, src.byteOffset, src.length);
  for (let i = 0, out = dstOffset; i < bits.length; i++, out += 2) {
    const half = halfFromFloatBits(bits[i]!);
    dst[out] = half & 0xff;
    dst[out + 1] = half >>> 8;
  }
  return bytes;
}

/** Writes `src` as little-endian f32 into `dst[dstOffset..]`; returns the bytes written. */
export function encodeF32(src: Float32Array, dst: Uint8Array, dstOffset = 0): number {
  assertLittleEndian();
  const bytes = src.length * 4;
  if (dstOffset + bytes > dst.length) throw new GgufError('F32 destination buffer too small');
  new Uint8Array(dst.buffer, dst.byteOffset + dstOffset, bytes).set(
    new Uint8Array(src.buffer, src.byteOffset, bytes),
  );
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Encoding the header
// ---------------------------------------------------------------------------------------------

const NUMBER_RANGES: Record<GgufNumberType, [number, number] | undefined> = {
  [GgufValueType.UINT8]: [0, 0xff],
  [GgufValueType.INT8]: [-0x80, 0x7f],
  [GgufValueType.UINT16]: [0, 0xffff],
  [GgufValueType.INT16]: [-0x8000, 0x7fff],
  [GgufValueType.UINT32]: [0, 0xffffffff],
  [GgufValueType.INT32]: [-0x80000000, 0x7fffffff],
  [GgufValueType.FLOAT32]: undefined,
  [GgufValueType.FLOAT64]: undefined,
};

/** A growable little-endian byte buffer. */
class ByteWriter {
  private buf = Buffer.allocUnsafe(64 * 1024);
  length = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  u8(v: number): void {
    this.reserve(1);
    this.buf.writeUInt8(v, this.length);
    this.length += 1;
  }
  i8(v: number): void {
    this.reserve(1);
    this.buf.writeInt8(v, this.length);
    this.length += 1;
  }
  u16(v: number): void {
    this.reserve(2);
    this.buf.writeUInt16LE(v, this.length);
    this.length += 2;
  }
  i16(v: number): void {
    this.reserve(2);
    this.buf.writeInt16LE(v, this.length);
    this.length += 2;
  }
  u32(v: number): void {
    this.reserve(4);
    this.buf.writeUInt32LE(v, this.length);
    this.length += 4;
  }
  i32(v: number): void {
    this.reserve(4);
    this.buf.writeInt32LE(v, this.length);
    this.length += 4;
  }
  f32(v: number): void {
    this.reserve(4);
    this.buf.writeFloatLE(v, this.length);
    this.length += 4;
  }
  f64(v: number): void {
    this.reserve(8);
    this.buf.writeDoubleLE(v, this.length);
    this.length += 8;
  }
  u64(v: bigint | number): void {
    this.reserve(8);
    this.buf.writeBigUInt64LE(BigInt(v), this.length);
    this.length += 8;
  }
  i64(v: bigint): void {
    this.reserve(8);
    this.buf.writeBigInt64LE(v, this.length);
    this.length += 8;
  }
  string(s: string): void {
    const n = Buffer.byteLength(s, 'utf8');
    this.u64(n);
    this.reserve(n);
    this.buf.write(s, this.length, n, 'utf8');
    this.length += n;
  }
  zeros(n: number): void {
    this.reserve(n);
    this.buf.fill(0, this.length, this.length + n);
    this.length += n;
  }
  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

function checkNumber(type: GgufNumberType, v: unknown, key: string): number {
  if (typeof v !== 'number') throw new GgufError(`${key}: expected a number for ${GgufValueType[type]}`);
  const range = NUMBER_RANGES[type];
  if (range !== undefined && (!Number.isInteger(v) || v < range[0] || v > range[1])) {
    throw new GgufError(`${key}: ${v} is not a valid ${GgufValueType[type]}`);
  }
  return v;
}

function writeScalar(w: ByteWriter, type: GgufScalarType, v: unknown, key: string): void {
  switch (type) {
    case GgufValueType.UINT8:
      return w.u8(checkNumber(type, v, key));
    case GgufValueType.INT8:
      return w.i8(checkNumber(type, v, key));
    case GgufValueType.UINT16:
      return w.u16(checkNumber(type, v, key));
    case GgufValueType.INT16:
      return w.i16(checkNumber(type, v, key));
    case GgufValueType.UINT32:
      return w.u32(checkNumber(type, v, key));
    case GgufValueType.INT32:
      return w.i32(checkNumber(type, v, key));
    case GgufValueType.FLOAT32:
      return w.f32(checkNumber(type, v, key));
    case GgufValueType.FLOAT64:
      return w.f64(checkNumber(type, v, key));
    case GgufValueType.UINT64:
      if (typeof v !== 'bigint' || v < 0n || v >= 1n << 64n) throw new GgufError(`${key}: expected a u64 bigint`);
      return w.u64(v);
    case GgufValueType.INT64:
      if (typeof v !== 'bigint' || v < -(1n << 63n) || v >= 1n << 63n) throw new GgufError(`${key}: expected an i64 bigint`);
      return w.i64(v);
    case GgufValueType.BOOL:
      if (typeof v !== 'boolean') throw new GgufError(`${key}: expected a boolean`);
      return w.u8(v ? 1 : 0);
    case GgufValueType.STRING:
      if (typeof v !== 'string') throw new GgufError(`${key}: expected a string`);
      return w.string(v);
    default:
      throw new GgufError(`${key}: invalid value type ${String(type)}`);
  }
}

function isScalarType(type: number): type is GgufScalarType {
  return Number.isInteger(type) && type >= 0 && type <= GgufValueType.FLOAT64 && type !== GgufValueType.ARRAY;
}

/** The layout of a file about to be written: header bytes and where each tensor's data goes. */
export interface GgufLayout {
  /** Magic through tensor infos, padded to the alignment: the data section starts right after. */
  header: Buffer;
  alignment: number;
  tensors: GgufTensorInfo[];
  /** Total file size in bytes, every tensor padded to the alignment. */
  fileSize: number;
}

/** Alignment declared by metadata (validated), or the default. */
export function alignmentOf(metadata: GgufMetadata): number {
  const entry = metadata.get(GGUF_ALIGNMENT_KEY);
  if (entry === undefined) return GGUF_DEFAULT_ALIGNMENT;
  if (entry.type !== GgufValueType.UINT32) throw new GgufError(`${GGUF_ALIGNMENT_KEY} must be a UINT32`);
  const a = entry.value;
  if (a <= 0 || (a & (a - 1)) !== 0) throw new GgufError(`${GGUF_ALIGNMENT_KEY} must be a power of two, got ${a}`);
  return a;
}

/** Encodes the header (KV + tensor infos) and computes every tensor's offset. */
export function layoutGguf(metadata: GgufMetadata, tensors: readonly GgufTensorSpec[]): GgufLayout {
  const alignment = alignmentOf(metadata);
  const w = new ByteWriter();
  w.u32(GGUF_MAGIC);
  w.u32(GGUF_VERSION);
  w.u64(tensors.length);
  w.u64(metadata.size);

  for (const [key, entry] of metadata) {
    if (key.length === 0) throw new GgufError('empty metadata key');
    w.string(key);
    if (entry.type === GgufValueType.ARRAY) {
      if (!isScalarType(entry.itemType)) throw new GgufError(`${key}: arrays of ${String(entry.itemType)} are not supported`);
      if (!Array.isArray(entry.value)) throw new GgufError(`${key}: array value must be an array`);
      w.u32(GgufValueType.ARRAY);
      w.u32(entry.itemType);
      w.u64(entry.value.length);
      for (const item of entry.value) writeScalar(w, entry.itemType, item, key);
    } else {
      if (!isScalarType(entry.type)) throw new GgufError(`${key}: invalid value type ${String(entry.type)}`);
      w.u32(entry.type);
      writeScalar(w, entry.type, entry.value, key);
    }
  }

  const infos: GgufTensorInfo[] = [];
  const names = new Set<string>();
  let offset = 0;
  for (const t of tensors) {
    if (names.has(t.name)) throw new GgufError(`duplicate tensor name ${t.name}`);
    names.add(t.name);
    if (t.dims.length < 1 || t.dims.length > 4) throw new GgufError(`${t.name}: 1 to 4 dimensions expected`);
    if (!t.dims.every((d) => Number.isSafeInteger(d) && d > 0)) throw new GgufError(`${t.name}: bad dimensions`);
    const byteLength = tensorByteLength(t.type, t.dims);
    w.string(t.name);
    w.u32(t.dims.length);
    for (const d of t.dims) w.u64(d);
    w.u32(t.type);
    w.u64(offset);
    infos.push({ name: t.name, dims: [...t.dims], type: t.type, offset, byteLength });
    offset += alignTo(byteLength, alignment);
  }
  w.zeros(alignTo(w.length, alignment) - w.length);
  const header = Buffer.from(w.bytes());
  return { header, alignment, tensors: infos, fileSize: header.length + offset };
}

// ---------------------------------------------------------------------------------------------
// Streaming writer
// ---------------------------------------------------------------------------------------------

/** Bytes or chunks of bytes; chunks may reuse one buffer (each is copied before the next is pulled). */
export type TensorData = Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>;

/**
 * Writes a GGUF file sequentially: the header at open, then each tensor's data in the order the
 * tensors were declared, then `close()`. Output is buffered (a few MB) and hashed on the fly.
 *
 *   const w = await GgufWriter.open(path, metadata, [{ name, dims, type }]);
 *   await w.writeTensor(name, chunks);
 *   const { bytes, sha256 } = await w.close();
 */
export class GgufWriter {
  private readonly buffer: Buffer;
  private buffered = 0;
  private written = 0;
  private next = 0;
  private readonly hash: Hash = createHash('sha256');

  private constructor(
    private readonly file: FileHandle,
    readonly layout: GgufLayout,
    bufferBytes: number,
  ) {
    this.buffer = Buffer.allocUnsafe(bufferBytes);
  }

  static async open(
    path: string,
    metadata: GgufMetadata,
    tensors: readonly GgufTensorSpec[],
    options: { bufferBytes?: number } = {},
  ): Promise<GgufWriter> {
    const layout = layoutGguf(metadata, tensors);
    const file = await open(path, 'w');
    const writer = new GgufWriter(file, layout, options.bufferBytes ?? 8 * 1024 * 1024);
    try {
      await writer.append(layout.header);
    } catch (error) {
      await file.close();
      throw error;
    }
    return writer;
  }

  /** The tensor whose data is expected next, or undefined when all have been written. */
  get nextTensor(): GgufTensorInfo | undefined {
    return this.layout.tensors[this.next];
  }

  /** Writes the data of the next tensor (which must be `name`), then its alignment padding. */
  async writeTensor(name: string, data: TensorData): Promise<void> {
    const info = this.nextTensor;
    if (info === undefined) throw new GgufError(`unexpected tensor ${name}: all tensors already written`);
    if (info.name !== name) throw new GgufError(`expected data for tensor ${info.name}, got ${name}`);
    const start = this.written;
    if (data instanceof Uint8Array) {
      await this.append(data);
    } else {
      for await (const chunk of data) await this.append(chunk);
    }
    const length = this.written - start;
    if (length !== info.byteLength) {
      throw new GgufError(`tensor ${name}: got ${length} bytes of data, expected ${info.byteLength}`);
    }
    await this.append(Buffer.alloc(alignTo(length, this.layout.alignment) - length));
    this.next += 1;
  }

  /** Flushes and closes the file; every declared tensor must have been written. */
  async close(): Promise<{ bytes: number; sha256: string }> {
    try {
      if (this.nextTensor !== undefined) throw new GgufError(`tensor ${this.nextTensor.name} was never written`);
      await this.flush();
      if (this.written !== this.layout.fileSize) {
        throw new GgufError(`wrote ${this.written} bytes, expected ${this.layout.fileSize}`);
      }
    } finally {
      await this.file.close();
    }
    return { bytes: this.written, sha256: this.hash.digest('hex') };
  }

  /** Closes the file without checks (the caller deletes it). */
  async abort(): Promise<void> {
    await this.file.close().catch(() => undefined);
  }

  private async append(chunk: Uint8Array): Promise<void> {
    let pos = 0;
    while (pos < chunk.length) {
      const n = Math.min(chunk.length - pos, this.buffer.length - this.buffered);
      this.buffer.set(chunk.subarray(pos, pos + n), this.buffered);
      this.buffered += n;
      pos += n;
      if (this.buffered === this.buffer.length) await this.flush();
    }
    this.written += chunk.length;
  }

  private async flush(): Promise<void> {
    if (this.buffered === 0) return;
    const data = this.buffer.subarray(0, this.buffered);
    this.hash.update(data);
    let done = 0;
    while (done < data.length) {
      const { bytesWritten } = await this.file.write(data, done, data.length - done);
      done += bytesWritten;
    }
    this.buffered = 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Reader
// ---------------------------------------------------------------------------------------------

/** A parsed GGUF header. */
export interface GgufHeader {
  version: number;
  metadata: GgufMetadata;
  tensors: GgufTensorInfo[];
  alignment: number;
  /** Absolute file offset where the tensor data section starts. */
  dataOffset: number;
}

/** Reads bytes at absolute positions; returns fewer only at end of input. */
type ReadAt = (position: number, length: number) => Uint8Array;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Sequential little-endian reader over a ReadAt source, fetching windows of ≥ 1 MiB. */
class Cursor {
  private window: Uint8Array = new Uint8Array(0);
  private view = new DataView(this.window.buffer);
  private windowStart = 0;
  pos = 0;

  constructor(private readonly readAt: ReadAt) {}

  private need(n: number): number {
    const rel = this.pos - this.windowStart;
    if (rel + n <= this.window.length) return rel;
    const chunk = this.readAt(this.pos, Math.max(n, 1024 * 1024));
    if (chunk.length < n) throw new GgufError(`unexpected end of file at byte ${this.pos} (needed ${n} more)`);
    this.window = chunk;
    this.view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.windowStart = this.pos;
    return 0;
  }

  u8(): number {
    const r = this.need(1);
    this.pos += 1;
    return this.view.getUint8(r);
  }
  i8(): number {
    const r = this.need(1);
    this.pos += 1;
    return this.view.getInt8(r);
  }
  u16(): number {
    const r = this.need(2);
    this.pos += 2;
    return this.view.getUint16(r, true);
  }
  i16(): number {
    const r = this.need(2);
    this.pos += 2;
    return this.view.getInt16(r, true);
  }
  u32(): number {
    const r = this.need(4);
    this.pos += 4;
    return this.view.getUint32(r, true);
  }
  i32(): number {
    const r = this.need(4);
    this.pos += 4;
    return this.view.getInt32(r, true);
  }
  f32(): number {
    const r = this.need(4);
    this.pos += 4;
    return this.view.getFloat32(r, true);
  }
  f64(): number {
    const r = this.need(8);
    this.pos += 8;
    return this.view.getFloat64(r, true);
  }
  u64(): bigint {
    const r = this.need(8);
    this.pos += 8;
    return this.view.getBigUint64(r, true);
  }
  i64(): bigint {
    const r = this.need(8);
    this.pos += 8;
    return this.view.getBigInt64(r, true);
  }
  /** A u64 that must fit in a JS number (counts, lengths, offsets). */
  count(what: string): number {
    const r = this.need(8);
    this.pos += 8;
    const lo = this.view.getUint32(r, true);
    const hi = this.view.getUint32(r + 4, true);
    if (hi > 0x1fffff) throw new GgufError(`${what} ${(BigInt(hi) << 32n) | BigInt(lo)} is too large`);
    return hi * 0x100000000 + lo;
  }
  string(): string {
    const n = this.count('string length');
    const r = this.need(n);
    this.pos += n;
    try {
      return utf8.decode(this.window.subarray(r, r + n));
    } catch {
      throw new GgufError(`invalid UTF-8 in a string at byte ${this.pos - n}`);
    }
  }
}

function readScalar(c: Cursor, type: GgufScalarType): number | bigint | boolean | string {
  switch (type) {
    case GgufValueType.UINT8:
      return c.u8();
    case GgufValueType.INT8:
      return c.i8();
    case GgufValueType.UINT16:
      return c.u16();
    case GgufValueType.INT16:
      return c.i16();
    case GgufValueType.UINT32:
      return c.u32();
    case GgufValueType.INT32:
      return c.i32();
    case GgufValueType.FLOAT32:
      return c.f32();
    case GgufValueType.FLOAT64:
      return c.f64();
    case GgufValueType.UINT64:
      return c.u64();
    case GgufValueType.INT64:
      return c.i64();
    case GgufValueType.BOOL: {
      const b = c.i8();
      if (b !== 0 && b !== 1) throw new GgufError(`invalid bool ${b}`);
      return b === 1;
    }
    case GgufValueType.STRING:
      return c.string();
    default:
      throw new GgufError(`invalid value type ${String(type)}`);
  }
}

function parseHeader(readAt: ReadAt): GgufHeader {
  const c = new Cursor(readAt);
  const magic = c.u32();
  if (magic !== GGUF_MAGIC) throw new GgufError('not a GGUF file (bad magic)');
  const version = c.u32();
  if (version !== 2 && version !== 3) throw new GgufError(`unsupported GGUF version ${version}`);
  const tensorCount = c.count('tensor count');
  const kvCount = c.count('KV count');

  const metadata: GgufMetadata = new Map();
  for (let i = 0; i < kvCount; i++) {
    const key = c.string();
    if (key.length === 0) throw new GgufError(`KV ${i} has an empty key`);
    if (metadata.has(key)) throw new GgufError(`duplicate key ${key}`);
    const type = c.u32();
    if (type === GgufValueType.ARRAY) {
      const itemType = c.u32();
      if (!isScalarType(itemType)) throw new GgufError(`${key}: arrays of type ${itemType} are not supported`);
      const n = c.count(`${key}: array length`);
      const items: unknown[] = new Array(n);
      for (let j = 0; j < n; j++) items[j] = readScalar(c, itemType);
      metadata.set(key, { type: GgufValueType.ARRAY, itemType, value: items } as GgufValue);
    } else {
      if (!isScalarType(type)) throw new GgufError(`${key}: invalid value type ${type}`);
      metadata.set(key, { type, value: readScalar(c, type) } as GgufValue);
    }
  }
  const alignment = alignmentOf(metadata);

  const tensors: GgufTensorInfo[] = [];
  const names = new Set<string>();
  for (let i = 0; i < tensorCount; i++) {
    const name = c.string();
    if (names.has(name)) throw new GgufError(`duplicate tensor name ${name}`);
    names.add(name);
    const nDims = c.u32();
    if (nDims < 1 || nDims > 4) throw new GgufError(`${name}: ${nDims} dimensions`);
    const dims: number[] = [];
    for (let j = 0; j < nDims; j++) dims.push(c.count(`${name}: dimension`));
    const type = c.u32() as GgmlType;
    const offset = c.count(`${name}: offset`);
    if (offset % alignment !== 0) throw new GgufError(`${name}: offset ${offset} is not aligned to ${alignment}`);
    const byteLength = TYPE_LAYOUT.has(type) ? tensorByteLength(type, dims) : undefined;
    tensors.push({ name, dims, type, offset, byteLength });
  }
  const dataOffset = tensorCount > 0 ? alignTo(c.pos, alignment) : c.pos;
  return { version, metadata, tensors, alignment, dataOffset };
}

/** Parses the header of a GGUF file held in memory. */
export function parseGguf(bytes: Uint8Array): GgufHeader {
  return parseHeader((position, length) => bytes.subarray(position, position + length));
}

/** Reads the header (metadata and tensor infos, not the tensor data) of a GGUF file. */
export function readGgufHeader(path: string): GgufHeader {
  const fd = openSync(path, 'r');
  try {
    return parseHeader((position, length) => {
      const buf = Buffer.allocUnsafe(length);
      let got = 0;
      while (got < length) {
        const n = readSync(fd, buf, got, length - got, position + got);
        if (n === 0) break;
        got += n;
      }
      return buf.subarray(0, got);
    });
  } finally {
    closeSync(fd);
  }
}

/** Reads one tensor's raw data from a GGUF file whose header has been read. */
export async function readTensorData(path: string, header: GgufHeader, name: string): Promise<Buffer> {
  const info = header.tensors.find((t) => t.name === name);
  if (info === undefined) throw new GgufError(`no tensor named ${name}`);
  if (info.byteLength === undefined) throw new GgufError(`${name}: unsupported type ${info.type}`);
  const file = await open(path, 'r');
  try {
    const buf = Buffer.alloc(info.byteLength);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await file.read(buf, got, buf.length - got, header.dataOffset + info.offset + got);
      if (bytesRead === 0) throw new GgufError(`${name}: file is truncated`);
      got += bytesRead;
    }
    return buf;
  } finally {
    await file.close();
  }
}
