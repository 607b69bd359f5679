import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DocumentCategory } from '../../src/contract/case-files.js';
import { fixturePath } from './paths.js';

export const DEID_FIXTURES = fixturePath('deid');
const PHOTOS = fixturePath('photos');

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

/** The real photos whose de-identification truth is known (test/fixtures/photos/ground-truth.json). */
function photoCases(): DeidCase[] {
  const truth = JSON.parse(readFileSync(join(PHOTOS, 'ground-truth.json'), 'utf8')) as Record<string, { deid?: DeidTruth }>;
  return Object.entries(truth).flatMap(([file, { deid }]) => (deid ? [{ ...deid, path: join(PHOTOS, file) }] : []));
}

/** The project's rendered fixtures, then the real photos. */
export function deidCases(): DeidCase[] {
  const fixtures = Object.entries(deidGroundTruth()).map(([file, truth]) => ({ ...truth, path: join(DEID_FIXTURES, file) }));
  return [...fixtures, ...photoCases()];
}

const RESIDENT_ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];

/** GB 11643 check character of the first 17 digits of a resident ID. */
export function residentIdCheckDigit(first17: string): string {
  const sum = [...first17].reduce((total, digit, i) => total + Number(digit) * RESIDENT_ID_WEIGHTS[i]!, 0);
  return '10X98765432'[sum % 11]!;
}

export const isValidResidentId = (id: string): boolean =>
  /^\d{17}[\dX]$/.test(id) && residentIdCheckDigit(id.slice(0, 17)) === id[17];
