import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VOCABULARY, scanLabels, vocabularyLabels, wholeLabel } from '../../../src/operations/personal-data/label-scanner.js';
import { seededRandom } from '../../support/random.js';
import { referenceVocabularyLabels, referenceWholeLabel } from './label-scanner-reference.js';

const fixtureText = (path: string): string[] =>
  Object.values(JSON.parse(readFileSync(new URL(`../../fixtures/${path}`, import.meta.url), 'utf8')) as Record<string, { text?: string; personal?: string[]; clinical?: string[] }>).flatMap(
    ({ text = '', personal = [], clinical = [] }) => [...text.split('\n'), ...personal, ...clinical],
  );

/** Characters a label meets around and inside it: spaces of every kind, letters that fold onto ASCII ones, CJK, digits, a surrogate pair. */
const AROUND = ['', ' ', '  ', '\t', '\u3000', '\u00a0', 'a', 'Z', ':', '：', '名', '姓', '1', '\u212a', '\u017f', '😀', '.', '-', '/'];
const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** A label as OCR may give it: letters in any case (or as the Kelvin sign and long s), spaces between its characters. */
function misprinted(label: string, random: () => number): string {
  return [...label]
    .map((char) => {
      let out = random() < 0.5 ? char.toUpperCase() : char.toLowerCase();
      if (/k/iu.test(char) && random() < 0.2) out = '\u212a';
      if (/s/iu.test(char) && random() < 0.2) out = '\u017f';
      const spaces = random() < 0.3 ? pick(random, ['', ' ', '  ', '   ', '    ', '\u3000', '\t ']) : '';
      return spaces + out;
    })
    .join('')
    .trimStart();
}

function generatedLines(count: number): string[] {
  const random = seededRandom('label scanner');
  return Array.from({ length: count }, () => {
    const parts = Array.from({ length: 1 + Math.floor(random() * 4) }, () => {
      const { label } = pick(random, VOCABULARY);
      return pick(random, AROUND) + (random() < 0.5 ? label : misprinted(label, random)) + pick(random, AROUND);
    });
    return parts.join(pick(random, ['', ' ', '  ', ': ', '：']));
  });
}

describe('label scanner', () => {
  const fixtures = [...fixtureText('ocr/a4/ground-truth.json'), ...fixtureText('photos/ground-truth.json'), ...fixtureText('deid/ground-truth.json')];
  const generated = generatedLines(5000);

  it('finds the labels one regular expression of the whole vocabulary finds, on the fixtures and on generated lines', () => {
    const lines = [...fixtures, ...generated];
    const differing = lines.filter((line) => JSON.stringify(vocabularyLabels(line)) !== JSON.stringify(referenceVocabularyLabels(line)));
    expect(differing).toEqual([]);
    expect(lines.filter((line) => vocabularyLabels(line).length > 0).length).toBeGreaterThan(4000);
  });

  it('names a whole label as the regular expression does, misprinted or not', () => {
    const random = seededRandom('whole labels');
    const texts = [...fixtures, ...VOCABULARY.flatMap(({ label }) => [label, misprinted(label, random), `${label}x`, ` ${label}`, `${misprinted(label, random)} `])];
    const differing = texts.filter((text) => wholeLabel(text) !== referenceWholeLabel(text));
    expect(differing).toEqual([]);
    expect(texts.filter((text) => wholeLabel(text)).length).toBeGreaterThan(VOCABULARY.length);
  });

  it('reads the longest label at a place, and Latin labels only as whole words', () => {
    expect(scanLabels('患者姓名：张三').map(({ label }) => label)).toEqual(['患者姓名']);
    expect(scanLabels('Patient  Name: Ellis').map(({ label }) => label)).toEqual(['Patient Name']);
    expect(scanLabels('Outpatient: x').map(({ label }) => label)).toEqual([]);
    expect(scanLabels('姓 名 张三').map(({ start, end }) => [start, end])).toEqual([[0, 3]]);
    expect(scanLabels('姓    名').map(({ label }) => label)).not.toContain('姓名');
  });
});
