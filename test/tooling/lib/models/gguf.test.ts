import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GgmlType,
  GgufError,
  GgufValueType,
  GgufWriter,
  dequantizeQ8_0,
  f16BitsToF32,
  f32ToF16Bits,
  kv,
  layoutGguf,
  parseGguf,
  quantizeQ8_0,
  readGgufHeader,
  readTensorData,
  tensorByteLength,
  type GgufMetadata,
  type GgufTensorSpec,
  type GgufValue,
} from '../../../../scripts/lib/models/gguf.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gguf-test-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** One KV of every scalar type and arrays of several item types. */
function sampleMetadata(alignment?: number): GgufMetadata {
  const entries: [string, GgufValue][] = [
    ['general.architecture', kv.str('test')],
    ['test.u8', kv.u8(255)],
    ['test.i8', kv.i8(-128)],
    ['test.u16', kv.u16(65535)],
    ['test.i16', kv.i16(-32768)],
    ['test.u32', kv.u32(4_294_967_295)],
    ['test.i32', kv.i32(-2_147_483_648)],
    ['test.f32', kv.f32(1.5)],
    ['test.f64', kv.f64(Math.PI)],
    ['test.bool', kv.bool(true)],
    ['test.string', kv.str('héllo, 世界 — <|im_end|>')],
    ['test.empty_string', kv.str('')],
    ['test.u64', kv.u64(18_446_744_073_709_551_615n)],
    ['test.i64', kv.i64(-9_223_372_036_854_775_808n)],
    ['test.arr.u8', kv.arr(GgufValueType.UINT8, [0, 1, 255])],
    ['test.arr.i32', kv.arr(GgufValueType.INT32, [-1, 0, 2_147_483_647])],
    ['test.arr.f32', kv.arr(GgufValueType.FLOAT32, [0.5, -2, 1e10])],
    ['test.arr.f64', kv.arr(GgufValueType.FLOAT64, [Math.E])],
    ['test.arr.bool', kv.arr(GgufValueType.BOOL, [true, false])],
    ['test.arr.string', kv.arr(GgufValueType.STRING, ['a', '', 'Ġworld', '你好'])],
    ['test.arr.u64', kv.arr(GgufValueType.UINT64, [0n, 1n << 40n])],
    ['test.arr.i64', kv.arr(GgufValueType.INT64, [-5n])],
    ['test.arr.empty', kv.arr(GgufValueType.UINT32, [])],
  ];
  if (alignment !== undefined) entries.splice(1, 0, ['general.alignment', kv.u32(alignment)]);
  return new Map(entries);
}

const TENSORS: GgufTensorSpec[] = [
  { name: 'odd.f32', dims: [5], type: GgmlType.F32 }, // 20 bytes: forces padding
  { name: 'matrix.f16', dims: [4, 3], type: GgmlType.F16 },
  { name: 'matrix.q8_0', dims: [32, 2], type: GgmlType.Q8_0 },
];

/** Deterministic bytes for a tensor. */
function tensorBytes(spec: GgufTensorSpec): Uint8Array {
  const n = tensorByteLength(spec.type, spec.dims);
  return Uint8Array.from({ length: n }, (_, i) => (i * 31 + spec.name.length) & 0xff);
}

async function writeSample(path: string, metadata: GgufMetadata): Promise<{ bytes: number; sha256: string }> {
  const writer = await GgufWriter.open(path, metadata, TENSORS, { bufferBytes: 16 });
  for (const spec of TENSORS) {
    const data = tensorBytes(spec);
    if (spec.type === GgmlType.Q8_0) {
      // Streamed in chunks that reuse one buffer.
      const chunk = new Uint8Array(7);
      const chunks = function* (): Generator<Uint8Array> {
        for (let i = 0; i < data.length; i += chunk.length) {
          const part = data.subarray(i, i + chunk.length);
          chunk.set(part);
          yield chunk.subarray(0, part.length);
        }
      };
      await writer.writeTensor(spec.name, chunks());
    } else {
      await writer.writeTensor(spec.name, data);
    }
  }
  return writer.close();
}

describe('GGUF writer and reader', () => {
  it('round-trips metadata of every type, tensor infos and data with a custom alignment', async () => {
    const path = join(dir, 'aligned.gguf');
    const metadata = sampleMetadata(64);
    const result = await writeSample(path, metadata);

    const file = await readFile(path);
    expect(result.bytes).toBe(file.length);
    expect(result.sha256).toBe(createHash('sha256').update(file).digest('hex'));
    expect(file.subarray(0, 4).toString('latin1')).toBe('GGUF');

    const header = readGgufHeader(path);
    expect(header.version).toBe(3);
    expect(header.alignment).toBe(64);
    expect(header.metadata).toEqual(metadata);
    expect([...header.metadata.keys()]).toEqual([...metadata.keys()]);
    expect(header.dataOffset % 64).toBe(0);
    expect(header.tensors.map(({ name, dims, type }) => ({ name, dims, type }))).toEqual(TENSORS);
    expect(header.tensors.map((t) => t.offset)).toEqual([0, 64, 128]);
    expect(header.tensors.map((t) => t.byteLength)).toEqual([20, 24, 68]);
    // Every tensor, the last included, is padded to the alignment.
    expect(file.length).toBe(header.dataOffset + 128 + 128);

    for (const spec of TENSORS) {
      expect(new Uint8Array(await readTensorData(path, header, spec.name))).toEqual(tensorBytes(spec));
    }
    // Padding is zeros.
    expect(file.subarray(header.dataOffset + 20, header.dataOffset + 64).every((b) => b === 0)).toBe(true);

    // The in-memory parser agrees with the file reader.
    expect(parseGguf(file)).toEqual(header);
  });

  it('defaults to 32-byte alignment', async () => {
    const path = join(dir, 'default.gguf');
    await writeSample(path, sampleMetadata());
    const header = readGgufHeader(path);
    expect(header.alignment).toBe(32);
    expect(header.dataOffset % 32).toBe(0);
    expect(header.tensors.map((t) => t.offset)).toEqual([0, 32, 64]);
    expect((await stat(path)).size).toBe(header.dataOffset + 64 + 96);
  });

  it('writes a file without tensors', async () => {
    const path = join(dir, 'vocab-only.gguf');
    const metadata = new Map([['general.architecture', kv.str('test')]]);
    const writer = await GgufWriter.open(path, metadata, []);
    await writer.close();
    const header = readGgufHeader(path);
    expect(header.tensors).toEqual([]);
    expect(header.metadata).toEqual(metadata);
  });

  it('rejects data for the wrong tensor, of the wrong length, or missing', async () => {
    const metadata = sampleMetadata();
    const outOfOrder = await GgufWriter.open(join(dir, 'bad1.gguf'), metadata, TENSORS);
    await expect(outOfOrder.writeTensor('matrix.f16', new Uint8Array(24))).rejects.toThrow(/expected data for tensor odd.f32/);
    await outOfOrder.abort();

    const short = await GgufWriter.open(join(dir, 'bad2.gguf'), metadata, TENSORS);
    await expect(short.writeTensor('odd.f32', new Uint8Array(19))).rejects.toThrow(/got 19 bytes.*expected 20/);
    await short.abort();

    const unfinished = await GgufWriter.open(join(dir, 'bad3.gguf'), metadata, TENSORS);
    await unfinished.writeTensor('odd.f32', new Uint8Array(20));
    await expect(unfinished.close()).rejects.toThrow(/matrix.f16 was never written/);
  });

  it('validates values, tensors and alignment', () => {
    const layout = (entries: [string, GgufValue][], tensors: GgufTensorSpec[] = []) => () =>
      layoutGguf(new Map(entries), tensors);
    expect(layout([['x', kv.u8(256)]])).toThrow(GgufError);
    expect(layout([['x', kv.i32(1.5)]])).toThrow(/not a valid INT32/);
    expect(layout([['x', kv.u64(-1n)]])).toThrow(/u64/);
    expect(layout([['x', { type: GgufValueType.ARRAY, itemType: GgufValueType.ARRAY, value: [] } as never]])).toThrow(
      /arrays of 9/,
    );
    expect(layout([['general.alignment', kv.u32(48)]])).toThrow(/power of two/);
    expect(layout([['general.alignment', kv.u64(64)]])).toThrow(/UINT32/);
    expect(layout([], [{ name: 'q', dims: [16], type: GgmlType.Q8_0 }])).toThrow(/multiple of its block size/);
    expect(
      layout(
        [],
        [
          { name: 't', dims: [1], type: GgmlType.F32 },
          { name: 't', dims: [1], type: GgmlType.F32 },
        ],
      ),
    ).toThrow(/duplicate tensor/);
  });

  it('rejects a file that is not GGUF or is truncated', async () => {
    expect(() => parseGguf(Buffer.from('GGML\x03\x00\x00\x00'))).toThrow(/bad magic/);
    const file = await readFile(join(dir, 'aligned.gguf'));
    expect(() => parseGguf(file.subarray(0, 100))).toThrow(/unexpected end of file/);
  });
});

describe('half precision', () => {
  it('converts float32 to f16 bits with round-to-nearest-even, subnormals and overflow', () => {
    const cases: [number, number][] = [
      [0, 0x0000],
      [-0, 0x8000],
      [1, 0x3c00],
      [-2, 0xc000],
      [0.1, 0x2e66],
      [0.333333, 0x3555],
      [65504, 0x7bff],
      [65520, 0x7c00], // rounds up to Inf
      [2 ** -14, 0x0400], // smallest normal
      [2 ** -24, 0x0001], // smallest subnormal
      [2 ** -25, 0x0000], // tie → even (0)
      [3 * 2 ** -26, 0x0001],
      [1e-8, 0x0000],
      [Infinity, 0x7c00],
      [-Infinity, 0xfc00],
    ];
    for (const [value, bits] of cases) expect([value, f32ToF16Bits(value)]).toEqual([value, bits]);
    expect(f32ToF16Bits(NaN) & 0x7c00).toBe(0x7c00);
    expect(f32ToF16Bits(NaN) & 0x3ff).not.toBe(0);
  });

  it('decodes f16 bits', () => {
    expect(f16BitsToF32(0x3c00)).toBe(1);
    expect(f16BitsToF32(0xc000)).toBe(-2);
    expect(f16BitsToF32(0x0001)).toBe(2 ** -24);
    expect(f16BitsToF32(0x7bff)).toBe(65504);
    expect(f16BitsToF32(0xfc00)).toBe(-Infinity);
    expect(f16BitsToF32(0x7e00)).toBeNaN();
  });
});

describe('Q8_0 quantization', () => {
  it('matches ggml quantize_row_q8_0_ref on a known vector', () => {
    // x_j = (j - 16) / 4: amax = 4, d = 4/127, 1/d = 31.75; x = ±2 gives the ties ±63.5 → ±64.
    const x = Float32Array.from({ length: 32 }, (_, j) => (j - 16) / 4);
    const out = new Uint8Array(34);
    expect(quantizeQ8_0(x, out)).toBe(34);
    expect(out[0]! | (out[1]! << 8)).toBe(0x2808); // f16(0.031496063)
    expect([...new Int8Array(out.buffer, 2, 32)]).toEqual([
      -127, -119, -111, -103, -95, -87, -79, -71, -64, -56, -48, -40, -32, -24, -16, -8, 0, 8, 16, 24, 32, 40, 48, 56,
      64, 71, 79, 87, 95, 103, 111, 119,
    ]);
    const back = dequantizeQ8_0(out, 32);
    const d = f16BitsToF32(0x2808);
    for (let j = 0; j < 32; j++) expect(Math.abs(back[j]! - x[j]!)).toBeLessThanOrEqual(d / 2 + 1e-3);
  });

  it('rounds halves away from zero like C roundf', () => {
    const x = new Float32Array(32);
    x.set([127, -2.5, 2.5, -0.5, 0.5, -1.5, 1.5, -126.5]);
    const out = new Uint8Array(34);
    quantizeQ8_0(x, out);
    expect(out[0]! | (out[1]! << 8)).toBe(0x3c00); // d = 1
    expect([...new Int8Array(out.buffer, 2, 8)]).toEqual([127, -3, 3, -1, 1, -2, 2, -127]);
  });

  it('encodes an all-zero block with d = 0', () => {
    const out = new Uint8Array(68).fill(0xaa);
    quantizeQ8_0(new Float32Array(64), out);
    expect(out.every((b) => b === 0)).toBe(true);
  });

  it('rejects lengths that are not a multiple of 32', () => {
    expect(() => quantizeQ8_0(new Float32Array(33), new Uint8Array(100))).toThrow(GgufError);
  });
});
