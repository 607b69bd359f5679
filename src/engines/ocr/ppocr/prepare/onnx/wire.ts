/**
 * Protocol Buffers' wire format, as much as reading and rewriting an ONNX model needs: a message
 * is a list of numbered fields, each a varint, a fixed 32- or 64-bit value or a length-delimited
 * run of bytes (strings, sub-messages, packed arrays). Fields this code does not understand are
 * carried through unchanged.
 */

export const enum WireType {
  Varint = 0,
  Fixed64 = 1,
  Bytes = 2,
  Fixed32 = 5,
}

export type Field = { number: number; type: WireType.Varint; value: bigint } | { number: number; type: WireType.Bytes | WireType.Fixed32 | WireType.Fixed64; value: Uint8Array };

export function readFields(bytes: Uint8Array): Field[] {
  const fields: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= bytes.length) throw new Error('truncated varint');
      const byte = bytes[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
  };
  const take = (length: number): Uint8Array => {
    if (at + length > bytes.length) throw new Error('truncated field');
    const value = bytes.subarray(at, at + length);
    at += length;
    return value;
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const number = key >>> 3;
    const type = key & 7;
    if (type === WireType.Varint) fields.push({ number, type, value: varint() });
    else if (type === WireType.Bytes) fields.push({ number, type, value: take(Number(varint())) });
    else if (type === WireType.Fixed32) fields.push({ number, type, value: take(4) });
    else if (type === WireType.Fixed64) fields.push({ number, type, value: take(8) });
    else throw new Error(`unsupported wire type ${type}`);
  }
  return fields;
}

function encodeVarint(value: bigint): Uint8Array {
  // Negative int64s are written as their 64-bit two's complement, as protobuf does.
  let rest = value < 0n ? value + (1n << 64n) : value;
  const bytes: number[] = [];
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest > 0n ? low | 0x80 : low);
  } while (rest > 0n);
  return Uint8Array.from(bytes);
}

export function writeFields(fields: readonly Field[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const field of fields) {
    parts.push(encodeVarint(BigInt((field.number << 3) | field.type)));
    if (field.type === WireType.Varint) parts.push(encodeVarint(field.value));
    else {
      if (field.type === WireType.Bytes) parts.push(encodeVarint(BigInt(field.value.length)));
      parts.push(field.value);
    }
  }
  return Buffer.concat(parts);
}

const utf8 = new TextEncoder();
const text = new TextDecoder();

export const bytesField = (number: number, value: Uint8Array): Field => ({ number, type: WireType.Bytes, value });
export const stringField = (number: number, value: string): Field => bytesField(number, utf8.encode(value));
export const varintField = (number: number, value: number | bigint): Field => ({ number, type: WireType.Varint, value: BigInt(value) });
export const floatField = (number: number, value: number): Field => {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setFloat32(0, value, true);
  return { number, type: WireType.Fixed32, value: bytes };
};

export const asString = (field: Field): string => (field.type === WireType.Bytes ? text.decode(field.value) : '');
export const asBytes = (field: Field): Uint8Array => (field.type === WireType.Varint ? new Uint8Array() : field.value);
export const asFloat = (field: Field): number => (field.type === WireType.Fixed32 ? new DataView(field.value.buffer, field.value.byteOffset, 4).getFloat32(0, true) : NaN);
export const asInteger = (field: Field): bigint => (field.type === WireType.Varint ? field.value : 0n);
