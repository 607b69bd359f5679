import { describe, expect, it } from 'vitest';
import { detectLanguage, isWrittenIn, looksDegenerate } from '../../../src/operations/text/language.js';

describe('language', () => {
  it.each([
    ['建议先行新辅助治疗', 'zh'],
    ['EGFR 19del 突变，建议 osimertinib 靶向治疗', 'zh'],
    ['cT2aN2M0，PD-L1 TPS 60%，建议免疫治疗', 'zh'],
    ['Neoadjuvant therapy first, then reassess.', 'en'],
    ['Dr. 张 recommends surgery after induction.', 'en'],
    ['', 'en'],
  ] as const)('%s reads as %s', (text, language) => {
    expect(detectLanguage(text)).toBe(language);
  });

  it('digits and punctuation alone are in no language', () => {
    expect(isWrittenIn('1. 2. 3.', 'zh')).toBe(false);
    expect(isWrittenIn('1. 2. 3.', 'en')).toBe(false);
  });

  it.each([
    ['meldmeldmeldmeldmeldmeldmeldmeldmeldmeld', true],
    ['好'.repeat(10), true],
    ['。'.repeat(12), true],
    ['建议手术，术后化疗，定期复查。', false],
    ['白细胞 3.86，血红蛋白 122，血小板 171', false],
  ] as const)('looksDegenerate(%s) is %s', (text, expected) => {
    expect(looksDegenerate(text)).toBe(expected);
  });
});
