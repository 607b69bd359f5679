import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CANCER_TYPES, TERM_MARKS, cancerTypeOf } from '../../../src/operations/personal-data/cancer-types.js';
import { fixturePath } from '../../../scripts/lib/paths.js';

/** Every string of a JSON document, split into lines. */
function linesOf(value: unknown): string[] {
  if (typeof value === 'string') return value.split('\n');
  if (Array.isArray(value)) return value.flatMap(linesOf);
  if (value && typeof value === 'object') return Object.values(value).flatMap(linesOf);
  return [];
}

const groundTruth = ['ocr/ground-truth.json', 'ocr/a4/ground-truth.json', 'ocr/patient/ground-truth.json', 'deid/ground-truth.json'].flatMap((file) =>
  linesOf(JSON.parse(readFileSync(fixturePath(...file.split('/')), 'utf8'))),
);
/** Each type named as reports write it: its own names, in diagnoses, upper case, glued to a side, with a histology. */
const written = CANCER_TYPES.flatMap(({ zh, en }) => [
  zh,
  `诊断：右${zh}`,
  `病理诊断：${zh.replace(/癌$/u, '鳞状细胞癌')}`,
  `Diagnosis: ${en}`,
  `DIAGNOSIS: ${en.toUpperCase()}`,
  `Impression: adenocarcinoma of the right ${en.split(' ')[0]}`,
  `leftbreast invasive ductal carcinoma, ${en}`,
]);
const corpus = [...groundTruth, ...written, 'NSCLC', 'SCLC', 'DCIS', 'HCC', 'RCC', 'hepatoma', 'Non-Hodgkin lymphoma', 'leukaemia', 'glioblastoma', 'neoplasm of the lung', 'malignancy of the liver'];

describe('the marks that rule a text out before the terms run', () => {
  it('are in every match of every term, in the terms’ language', () => {
    const missing: string[] = [];
    const matched = new Set<string>();
    for (const type of CANCER_TYPES) {
      for (const [language, terms] of [['zh', type.zhTerms], ['en', type.enTerms]] as const) {
        for (const term of terms) {
          for (const line of corpus) {
            for (const [text] of line.matchAll(term)) {
              matched.add(`${type.zh} ${language}`);
              if (!TERM_MARKS[language].test(text)) missing.push(`${term.source} matched "${text}"`);
            }
          }
        }
      }
    }
    expect(missing).toEqual([]);
    // Every type and language matched at least once, so that the check above had something to see.
    expect([...matched].sort()).toEqual(CANCER_TYPES.flatMap(({ zh }) => [`${zh} en`, `${zh} zh`]).sort());
  });

  // A text without a language's mark has none in any part of it either, so (by the test above) no
  // term of that language can match it: ruling the language out changes no answer.
  it('let a line that names a type through and rule out one without a mark', () => {
    for (const { zh, en } of CANCER_TYPES) {
      expect(cancerTypeOf(`诊断：${zh}`)).toBe(zh);
      expect(cancerTypeOf(`Diagnosis: ${en}`)).toBe(en);
    }
    expect(cancerTypeOf('白细胞计数 6.2 10^9/L 参考范围 3.5-9.5')).toBeNull();
    expect(cancerTypeOf('WBC count 6.2 x10^9/L, reference 3.5-9.5')).toBeNull();
  });
});
