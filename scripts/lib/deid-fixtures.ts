import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { DocumentCategory } from '../../src/contract/case-files.js';
import type { Quad } from '../../src/engines/ocr/index.js';
import { A4_FIXTURES, a4Truth } from './ocr-fixtures.js';
import { fixturePath } from './paths.js';
import { photoTruth } from './photos.js';

export const DEID_FIXTURES = fixturePath('deid');

export interface DeidTruth {
  category: DocumentCategory;
  pages: number;
  language: 'zh' | 'en';
  /** Degrees the page was turned clockwise when it was made (it reads upright turned back). */
  turn?: 90 | 180;
  /** Every planted personal string exactly as printed. */
  personal: string[];
  /** Key phrases that must stay readable after de-identification. */
  clinical: string[];
}

/** Where one planted string's glyphs are on a page: the box around their ink, as a quad (turned with the page). */
export interface PlantedGlyphs {
  text: string;
  quad: Quad;
}

/** A page as a viewer shows it (pixels, or a PDF page drawn at some scale), and its planted strings' glyphs. */
export interface PageGlyphs {
  width: number;
  height: number;
  planted: PlantedGlyphs[];
}

/** Each fixture's pages' glyphs (fixtures:deid writes them beside the files). */
export const deidGlyphs = (): Record<string, PageGlyphs[]> =>
  JSON.parse(readFileSync(join(DEID_FIXTURES, 'glyphs.json'), 'utf8')) as Record<string, PageGlyphs[]>;

export interface DeidCase extends DeidTruth {
  path: string;
}

export const deidGroundTruth = (): Record<string, DeidTruth> =>
  JSON.parse(readFileSync(join(DEID_FIXTURES, 'ground-truth.json'), 'utf8')) as Record<string, DeidTruth>;

/** The real blood-test photos (upright and turned), with their truth from test/fixtures/photos. */
export const REAL_DEID_PHOTOS = ['np2016_bloodtestreport2.jpg', 'np2016_bloodtestreport1.jpg'].map((file) => fixturePath('photos', file));

function photoCase(path: string): DeidCase {
  const truth = photoTruth()[basename(path)]!;
  return { category: 'lab_report', pages: 1, language: 'zh', personal: truth.personal ?? [], clinical: truth.clinical ?? [], path };
}

/** The full A4 pages of the OCR fixtures (test/fixtures/ocr/a4), named by language first. */
function a4Cases(): DeidCase[] {
  return Object.entries(a4Truth()).map(([file, { category, personal, clinical }]) => ({
    category,
    pages: 1,
    language: file.startsWith('zh-') ? 'zh' : 'en',
    personal,
    clinical,
    path: join(A4_FIXTURES, file),
  }));
}

/** The project's synthetic fixtures, the full A4 pages, then the real photos. */
export function deidCases(): DeidCase[] {
  const fixtures = Object.entries(deidGroundTruth()).map(([file, truth]) => ({ ...truth, path: join(DEID_FIXTURES, file) }));
  return [...fixtures, ...a4Cases(), ...REAL_DEID_PHOTOS.map(photoCase)];
}

const RESIDENT_ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];

/** GB 11643 check character of the first 17 digits of a resident ID. */
export function residentIdCheckDigit(first17: string): string {
  const sum = [...first17].reduce((total, digit, i) => total + Number(digit) * RESIDENT_ID_WEIGHTS[i]!, 0);
  return '10X98765432'[sum % 11]!;
}

export const isValidResidentId = (id: string): boolean =>
  /^\d{17}[\dX]$/.test(id) && residentIdCheckDigit(id.slice(0, 17)) === id[17];
