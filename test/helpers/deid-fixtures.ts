import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DocumentCategory } from '../../src/contract/case-files.js';

export const DEID_FIXTURES = 'test/fixtures/deid';
const SHARED_OCR = '../shared/testdata/ocr';

export interface DeidTruth {
  category: DocumentCategory;
  pages: number;
  language: 'zh' | 'en';
  /** Every planted personal string exactly as printed. */
  personal: string[];
  /** Key phrases that must stay readable after de-identification. */
  clinical: string[];
}

export interface DeidCase extends DeidTruth {
  path: string;
}

export const deidGroundTruth = (): Record<string, DeidTruth> =>
  JSON.parse(readFileSync(join(DEID_FIXTURES, 'ground-truth.json'), 'utf8')) as Record<string, DeidTruth>;

/** The real blood-test photo (and its rotated twin), by reference; truth from ../shared/testdata/README.md. */
const BLOOD_TEST: DeidTruth = {
  category: 'lab_report',
  pages: 1,
  language: 'zh',
  personal: ['孟丁', '90051065', '董薇', '樊一笋', '29028', '01425472', '20160824XXS0025'],
  clinical: ['独墅湖科教创新区医院化验报告单', '血常规', '白细胞计数', '3.86', '血红蛋白', '122', '血小板计数', '171', '性别', '男', '年龄', '儿科', '2016-08-24'],
};
export const REAL_DEID_PHOTOS = ['np2016_bloodtestreport2.jpg', 'np2016_bloodtestreport1.jpg'].map((file) => join(SHARED_OCR, file));

/** The project's fixtures, then the real photos (whether or not they are present). */
export function deidCases(): DeidCase[] {
  const fixtures = Object.entries(deidGroundTruth()).map(([file, truth]) => ({ ...truth, path: join(DEID_FIXTURES, file) }));
  return [...fixtures, ...REAL_DEID_PHOTOS.map((path) => ({ ...BLOOD_TEST, path }))];
}

const RESIDENT_ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];

/** GB 11643 check character of the first 17 digits of a resident ID. */
export function residentIdCheckDigit(first17: string): string {
  const sum = [...first17].reduce((total, digit, i) => total + Number(digit) * RESIDENT_ID_WEIGHTS[i]!, 0);
  return '10X98765432'[sum % 11]!;
}

export const isValidResidentId = (id: string): boolean =>
  /^\d{17}[\dX]$/.test(id) && residentIdCheckDigit(id.slice(0, 17)) === id[17];
