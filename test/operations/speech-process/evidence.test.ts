import { describe, expect, it } from 'vitest';
import { locateQuote, saysMoreThanName } from '../../../src/operations/speech-process/evidence.js';
import { splitIntoWindows } from '../../../src/operations/speech-process/windows.js';
import { canonicalJson, speechArtifactKey } from '../../../src/operations/speech-process/artifact.js';
import { placeSegments, voicesFor } from '../../../src/operations/speech-process/voices.js';

const slice = (text: string, span: { start: number; end: number } | null) => (span ? text.slice(span.start, span.end) : null);

describe('locateQuote', () => {
  const speech = '影像学上，右肺上叶见3.2厘米肿块；纵隔淋巴结肿大。Stage: cT2aN2M0 (IIIA).';

  it('finds an exact quote', () => {
    expect(slice(speech, locateQuote(speech, '右肺上叶见3.2厘米肿块'))).toBe('右肺上叶见3.2厘米肿块');
  });

  it('ignores punctuation, spaces, full-width forms and case', () => {
    expect(slice(speech, locateQuote(speech, '右肺上叶见３．２厘米肿块 纵隔淋巴结肿大'))).toBe('右肺上叶见3.2厘米肿块；纵隔淋巴结肿大');
    expect(slice(speech, locateQuote(speech, 'stage ct2an2m0 iiia'))).toBe('Stage: cT2aN2M0 (IIIA');
  });

  it('repairs a close paraphrase to the nearest span and rejects an invented one', () => {
    const asr = '影像学上右肺上叶见三点二厘米肿块纵隔淋巴结肿大考虑三A期';
    expect(slice(asr, locateQuote(asr, '右肺上叶有三点二厘米肿块'))).toBe('右肺上叶见三点二厘米肿块');
    expect(locateQuote(asr, '左肺下叶未见明显异常结节')).toBeNull();
    expect(locateQuote(asr, '')).toBeNull();
    expect(locateQuote(asr, '。')).toBeNull();
  });
});

describe('saysMoreThanName', () => {
  it.each([
    ['分期考虑T2aN2M0', '影像学分期', true],
    ['本科室无补充', '病理意见', true],
    ['影像学分期', '影像学分期', false],
    ['分期，', '影像学分期', false],
    ['stage IIIA', 'Clinical stage', true],
    ['staging', 'Staging', false],
  ])('%j for %j: %s', (evidence, name, expected) => {
    expect(saysMoreThanName(evidence, name)).toBe(expected);
  });
});

describe('splitIntoWindows', () => {
  it('keeps a short text whole', () => {
    expect(splitIntoWindows('短文本。', 100, 10)).toEqual([{ start: 0, end: 4 }]);
  });

  it('covers the whole text with overlapping windows that end on sentence boundaries', () => {
    const text = Array.from({ length: 40 }, (_, i) => `第${i}句话说了一些内容。`).join('');
    const windows = splitIntoWindows(text, 100, 15);
    expect(windows[0]!.start).toBe(0);
    expect(windows.at(-1)!.end).toBe(text.length);
    for (const [i, w] of windows.entries()) {
      expect(w.end - w.start).toBeLessThanOrEqual(100);
      if (i < windows.length - 1) expect(text[w.end - 1]).toBe('。');
      if (i > 0) expect(w.start).toBeLessThan(windows[i - 1]!.end);
    }
  });

  it('cuts unpunctuated text at the window size', () => {
    const windows = splitIntoWindows('字'.repeat(250), 100, 20);
    expect(windows).toEqual([
      { start: 0, end: 100 },
      { start: 80, end: 180 },
      { start: 160, end: 250 },
    ]);
  });
});

describe('artifact keys', () => {
  const request = {
    request_id: 'a',
    cancer_type: '肺癌',
    standard_department_code: 'RAD',
    points: [{ seq: 1, name: '影像' }],
    speech_text: '右肺肿块',
  };
  const processor = { prompt: 'speech-v1@aaaaaaaaaaaa', model: 'm.gguf@bbbbbbbbbbbb' };

  it('ignores request_id and key order, and treats absent voice_segments as empty', () => {
    const key = speechArtifactKey(request, processor);
    expect(speechArtifactKey({ ...request, request_id: 'b' }, processor)).toBe(key);
    expect(speechArtifactKey({ ...request, voice_segments: [] }, processor)).toBe(key);
    expect(key).toMatch(/^speech_[0-9a-f]{40}$/);
  });

  it('changes with the content, the prompt or the model', () => {
    const key = speechArtifactKey(request, processor);
    expect(speechArtifactKey({ ...request, speech_text: '右肺肿块。' }, processor)).not.toBe(key);
    expect(speechArtifactKey(request, { ...processor, prompt: 'speech-v2@aaaaaaaaaaaa' })).not.toBe(key);
    expect(speechArtifactKey(request, { ...processor, model: 'n.gguf@bbbbbbbbbbbb' })).not.toBe(key);
  });

  it('canonical JSON sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
  });
});

describe('voices', () => {
  it('places repeated phrases on their own occurrence', () => {
    const speech = '好的。肿块3厘米。好的。分期IIIA。';
    const placed = placeSegments(speech, [
      { voice_url: 'v1', text: '好的。肿块3厘米。' },
      { voice_url: 'v2', text: '好的。' },
      { voice_url: 'v3', text: '分期IIIA。' },
    ]);
    expect(placed.map((p) => slice(speech, p.span))).toEqual(['好的。肿块3厘米', '好的', '分期IIIA']);
    const staging = locateQuote(speech, '分期IIIA')!;
    expect(voicesFor(staging, placed)).toEqual(['v3']);
  });
});
