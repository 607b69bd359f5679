import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { DocumentCategory } from '../../src/contract/case-files.js';
import { fixturePath } from './paths.js';

export const OCR_FIXTURES = fixturePath('ocr');

export interface OcrTruth {
  text: string;
  patient_info: { name: string | null; age: string | null; cancer_type: string | null; stage: string | null };
}

export const readFixture = (file: string): Buffer => readFileSync(join(OCR_FIXTURES, file));

export const groundTruth = (): Record<string, OcrTruth> =>
  JSON.parse(readFileSync(join(OCR_FIXTURES, 'ground-truth.json'), 'utf8')) as Record<string, OcrTruth>;

/** Pages whose patient fields stand in other layouts, under test/fixtures/ocr/patient. */
export const PATIENT_FIXTURES = join(OCR_FIXTURES, 'patient');

/** A request of the patient-layout set: its files in order (names in PATIENT_FIXTURES), their text and the patient_info they give. */
export interface PatientRequestTruth extends OcrTruth {
  files: string[];
}

export const patientRequests = (): Record<string, PatientRequestTruth> =>
  JSON.parse(readFileSync(join(PATIENT_FIXTURES, 'ground-truth.json'), 'utf8')) as Record<string, PatientRequestTruth>;

/** Full A4 pages at 150 and 300 dpi, under test/fixtures/ocr/a4 (npm run fixtures:a4). */
export const A4_FIXTURES = join(OCR_FIXTURES, 'a4');

/** An A4 page: its text (its lines in reading order), patient_info, and what de-identification must hide and keep. */
export interface A4Truth extends OcrTruth {
  category: DocumentCategory;
  /** Every personal string exactly as printed. */
  personal: string[];
  /** Phrases that must stay readable after de-identification. */
  clinical: string[];
}

export const a4Truth = (): Record<string, A4Truth> => JSON.parse(readFileSync(join(A4_FIXTURES, 'ground-truth.json'), 'utf8')) as Record<string, A4Truth>;

/** A 24-bit BMP of an image (BMP fixtures are large, so tests make them). */
export async function toBmp(image: Buffer): Promise<Buffer> {
  const { data, info } = await sharp(image).greyscale().raw().toBuffer({ resolveWithObject: true });
  const rowSize = Math.ceil((info.width * 3) / 4) * 4;
  const out = Buffer.alloc(54 + rowSize * info.height);
  out.write('BM', 0);
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(54, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(info.width, 18);
  out.writeInt32LE(info.height, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(24, 28);
  out.writeUInt32LE(rowSize * info.height, 34);
  for (let y = 0; y < info.height; y++) {
    const row = 54 + (info.height - 1 - y) * rowSize;
    for (let x = 0; x < info.width; x++) out.fill(data[y * info.width + x]!, row + x * 3, row + x * 3 + 3);
  }
  return out;
}

/**
 * A PDF whose trailer names a Standard security handler with a user password: readers must ask
 * for the password (the O and U entries match no password).
 */
export function encryptedPdf(): Buffer {
  const objects = [
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
    '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj',
    `4 0 obj << /Filter /Standard /V 1 /R 2 /Length 40 /P -44 /O <${'ab'.repeat(32)}> /U <${'cd'.repeat(32)}> >> endobj`,
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (const object of objects) {
    offsets.push(body.length);
    body += object + '\n';
  }
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer << /Size ${objects.length + 1} /Root 1 0 R /Encrypt 4 0 R /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>] >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
