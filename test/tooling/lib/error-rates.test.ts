import { describe, expect, it } from 'vitest';
import { countErrors, editDistance, errorRate } from '../../../scripts/lib/error-rates.js';

describe('ASR error rates', () => {
  it('edit distance counts substitutions, insertions and deletions', () => {
    expect(editDistance([...'kitten'], [...'sitting'])).toBe(3);
    expect(editDistance([], [...'abc'])).toBe(3);
    expect(editDistance([...'abc'], [])).toBe(3);
    expect(editDistance(['a', 'b'], ['a', 'b'])).toBe(0);
  });

  it('CER ignores punctuation and spaces', () => {
    expect(countErrors('zh', '广州市房地产中介协会分析', '广州市，房地产 中介协会分析。')).toEqual({ edits: 0, referenceLength: 12 });
    expect(countErrors('zh', '你好你好', '你好您好')).toEqual({ edits: 1, referenceLength: 4 });
  });

  it('WER ignores case and punctuation', () => {
    expect(countErrors('en', 'IT WAS THE FIRST GREAT SORROW', 'It was the first great sorrow.')).toEqual({ edits: 0, referenceLength: 6 });
    expect(countErrors('en', 'ask not what your country', 'ask what your county')).toEqual({ edits: 2, referenceLength: 5 });
  });

  it('the corpus rate weights by reference length', () => {
    expect(errorRate([{ edits: 1, referenceLength: 4 }, { edits: 0, referenceLength: 16 }])).toBeCloseTo(0.05);
    expect(errorRate([])).toBe(0);
  });
});
