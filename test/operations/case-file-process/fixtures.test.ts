import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { DOCUMENT_CATEGORIES } from '../../../src/contract/case-files.js';
import { DEID_FIXTURES, deidCases, deidGroundTruth, isValidResidentId, residentIdCheckDigit } from '../../../scripts/lib/deid-fixtures.js';
import { fixturePath } from '../../../scripts/lib/paths.js';

const truth = deidGroundTruth();
const files = Object.keys(truth);
const isPdf = (file: string) => file.endsWith('.pdf');

async function realPageCount(file: string): Promise<number> {
  const bytes = readFileSync(join(DEID_FIXTURES, file));
  if (!isPdf(file)) return (await sharp(bytes).metadata()).pages ?? 1;
  const document = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
  const pages = document.numPages;
  await document.destroy();
  return pages;
}

describe('GB 11643 resident ID check digit', () => {
  it.each([
    ['11010519491231002', 'X'],
    ['44052418800101001', '4'],
  ])('%s → %s', (first17, check) => {
    expect(residentIdCheckDigit(first17)).toBe(check);
    expect(isValidResidentId(first17 + check)).toBe(true);
  });

  it.each([['110105194912310021'], ['44052418800101001X'], ['11010519491231002'], ['1101051949123100XX']])('%s is not valid', (id) => {
    expect(isValidResidentId(id)).toBe(false);
  });
});

describe('de-identification ground truth', () => {
  it('has 12+ files covering the kinds, formats and languages the eval needs', () => {
    expect(files.length).toBeGreaterThanOrEqual(12);
    const categories = new Set(files.map((f) => truth[f]!.category));
    for (const kind of ['pathology_report', 'imaging_report', 'lab_report', 'admission_record', 'discharge_summary']) expect(categories).toContain(kind);
    expect(files.filter((f) => truth[f]!.language === 'en').length).toBeGreaterThanOrEqual(3);
    const extensions = new Set(files.map((f) => f.split('.').pop()));
    for (const extension of ['png', 'jpg', 'webp', 'tiff', 'pdf']) expect(extensions).toContain(extension);
    expect(files.some((f) => isPdf(f) && truth[f]!.pages >= 2)).toBe(true);
  });

  it.each(files)('%s exists with a known category, personal strings and 8–15 clinical phrases', (file) => {
    const t = truth[file]!;
    expect(existsSync(join(DEID_FIXTURES, file))).toBe(true);
    expect(DOCUMENT_CATEGORIES).toContain(t.category);
    expect(['zh', 'en']).toContain(t.language);
    expect(t.personal.length).toBeGreaterThan(0);
    expect(t.clinical.length).toBeGreaterThanOrEqual(8);
    expect(t.clinical.length).toBeLessThanOrEqual(15);
    expect(t.personal.filter((p) => t.clinical.some((c) => c.includes(p)))).toEqual([]);
  });

  it.each(files)('%s has the page count its ground truth says', async (file) => {
    expect(await realPageCount(file)).toBe(truth[file]!.pages);
  });

  it('plants 18-digit resident IDs that all pass GB 11643, and a 15-digit old one', () => {
    const personal = files.flatMap((f) => truth[f]!.personal);
    const residentIds = personal.filter((p) => /^\d{17}[\dX]$/.test(p));
    expect(residentIds.length).toBeGreaterThanOrEqual(2);
    expect(residentIds.filter((id) => !isValidResidentId(id))).toEqual([]);
    expect(personal.some((p) => /^\d{15}$/.test(p))).toBe(true);
  });

  it('keeps the metadata planted in the EXIF JPEG for the stripping check', async () => {
    const metadata = await sharp(join(DEID_FIXTURES, 'imaging-zh-exif.jpg')).metadata();
    expect(metadata.orientation).toBe(6);
    expect(metadata.exif?.includes(Buffer.from([0x88, 0x25])) || metadata.exif?.includes(Buffer.from([0x25, 0x88]))).toBe(true);
    expect(metadata.xmp).toBeDefined();
    expect(metadata.icc).toBeDefined();
  });

  it('evaluates the real blood-test photos by reference, not as copies', () => {
    const paths = deidCases().map((c) => c.path);
    expect(paths.slice(-2)).toEqual([fixturePath('photos', 'np2016_bloodtestreport2.jpg'), fixturePath('photos', 'np2016_bloodtestreport1.jpg')]);
    expect(paths.filter((p) => p.includes('np2016'))).toHaveLength(2);
    expect(files.some((f) => f.startsWith('np2016'))).toBe(false);
  });
});
