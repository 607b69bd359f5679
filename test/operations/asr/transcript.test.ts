import { describe, expect, it } from 'vitest';
import { asrResponse } from '../../../src/contract/asr.js';
import { toAsrResponse } from '../../../src/operations/asr/asr.js';

describe('toAsrResponse keeps the segment invariants whatever the engine says', () => {
  it('clamps negatives, rounds to integer ms, orders by time and drops empty segments', () => {
    const response = toAsrResponse({
      text: '',
      segments: [
        { startMs: 2000.7, endMs: 1500, text: 'later' },
        { startMs: -5, endMs: 800.2, text: 'first' },
        { startMs: 900, endMs: 950, text: '   ' },
        { startMs: Number.NaN, endMs: Number.POSITIVE_INFINITY, text: 'odd' },
      ],
    });
    expect(response.segments).toEqual([
      { start_ms: 0, end_ms: 0, text: 'odd' },
      { start_ms: 0, end_ms: 800, text: 'first' },
      { start_ms: 2001, end_ms: 2001, text: 'later' },
    ]);
    expect(asrResponse.safeParse(response).success).toBe(true);
  });

  it('keeps the engine text when given, trimmed', () => {
    expect(toAsrResponse({ text: '  hello world ', segments: [] })).toEqual({ text: 'hello world', segments: [] });
  });

  it('joins segment texts: Chinese without spaces, other scripts with one', () => {
    const join = (...texts: string[]) =>
      toAsrResponse({ text: '', segments: texts.map((text, i) => ({ startMs: i * 1000, endMs: i * 1000 + 900, text })) }).text;
    expect(join('广州市', '房地产')).toBe('广州市房地产');
    expect(join('ask not', 'what your country')).toBe('ask not what your country');
    expect(join('你好', 'OK')).toBe('你好OK');
    expect(join('hello,', '世界')).toBe('hello,世界');
  });
});
