import { readFileSync } from 'node:fs';
import type { QuarterTurn } from '../../src/engines/ocr/index.js';
import type { PlantedGlyphs } from './deid-fixtures.js';
import { fixturePath } from './paths.js';

type Info = { name: string | null; age: string | null; cancer_type: string | null; stage: string | null };

/** What is known of a real photo (test/fixtures/photos/ground-truth.json). */
export interface PhotoTruth {
  /** The whole text, for the one-line crops. */
  text?: string;
  firstLine?: string;
  /** Quarter turns clockwise that make the page upright. */
  rotation?: QuarterTurn;
  /** Personal data printed on it, exactly as printed. */
  personal?: string[];
  /** Clinical content that must stay readable. */
  clinical?: string[];
  patient_info?: Info;
  /**
   * Where each personal string's glyphs are, in the photo's pixels: the middle of its characters
   * (their middle band across the line, all but the ends along it), drawn on the photo and checked by eye.
   */
  glyphs?: PlantedGlyphs[];
}

export const photoTruth = (): Record<string, PhotoTruth> =>
  JSON.parse(readFileSync(fixturePath('photos', 'ground-truth.json'), 'utf8')) as Record<string, PhotoTruth>;
