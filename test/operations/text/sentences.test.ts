import { describe, expect, it } from 'vitest';
import { characterBoundary, cutAtSentence } from '../../../src/operations/text/sentences.js';

describe('cutAtSentence', () => {
  it('leaves a short text alone', () => {
    expect(cutAtSentence('建议手术。', 10, '……')).toBe('建议手术。');
  });

  it('cuts after the last sentence end that fits, counting the marker', () => {
    const cut = cutAtSentence('建议手术。术后化疗。定期复查随访。', 14, '……');
    expect(cut).toBe('建议手术。术后化疗。……');
    expect(cut.length).toBeLessThanOrEqual(14);
  });

  it('cuts English after a period followed by a space', () => {
    expect(cutAtSentence('Surgery is advised first. Then chemotherapy for four cycles.', 40)).toBe('Surgery is advised first.');
  });

  it('falls back to a clause break, then a character boundary, when no sentence ends in the second half', () => {
    expect(cutAtSentence('建议手术，术后辅助化疗四个周期', 8)).toBe('建议手术，');
    expect(cutAtSentence('一二三四五六七八九十', 6)).toBe('一二三四五六');
  });

  it('never splits a character written as two UTF-16 units', () => {
    const text = '𠀀'.repeat(10); // each is a surrogate pair
    const cut = cutAtSentence(text, 7);
    expect(cut).toBe('𠀀'.repeat(3));
    expect(characterBoundary(text, 7)).toBe(6);
    expect(characterBoundary(text, 6)).toBe(6);
  });
});
