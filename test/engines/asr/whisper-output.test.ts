import { describe, expect, it } from 'vitest';
import { joinSegmentTexts } from '../../../src/engines/asr/transcript-text.js';
import { escapeControlCharsInStrings, parseWhisperJson } from '../../../src/engines/asr/whisper-json.js';

/** whisper-cli's -oj layout (1.9.1), with the segment texts written raw as whisper-cli writes them. */
function whisperJson(segments: Array<{ from: number; to: number; text: Buffer | string }>): Buffer {
  const parts: Buffer[] = [Buffer.from('{\n\t"result": {\n\t\t"language": "zh"\n\t},\n\t"transcription": [\n')];
  segments.forEach((segment, i) => {
    parts.push(Buffer.from(`\t\t{\n\t\t\t"offsets": {\n\t\t\t\t"from": ${segment.from},\n\t\t\t\t"to": ${segment.to}\n\t\t\t},\n\t\t\t"text": "`));
    parts.push(Buffer.isBuffer(segment.text) ? segment.text : Buffer.from(segment.text));
    parts.push(Buffer.from(`"\n\t\t}${i < segments.length - 1 ? ',' : ''}\n`));
  });
  parts.push(Buffer.from('\t]\n}\n'));
  return Buffer.concat(parts);
}

describe('parseWhisperJson', () => {
  it('reads segments in milliseconds and joins Chinese without spaces', () => {
    const transcript = parseWhisperJson(
      whisperJson([
        { from: 0, to: 1500, text: ' 广州市房地产' },
        { from: 1500, to: 4200, text: ' 中介协会分析' },
      ]),
      4281,
    );
    expect(transcript).toEqual({
      text: '广州市房地产中介协会分析',
      segments: [
        { startMs: 0, endMs: 1500, text: '广州市房地产' },
        { startMs: 1500, endMs: 4200, text: '中介协会分析' },
      ],
    });
  });

  it('joins English with single spaces', () => {
    const transcript = parseWhisperJson(
      whisperJson([
        { from: 0, to: 5000, text: ' And so my fellow Americans,' },
        { from: 5000, to: 11000, text: ' ask not what your country can do for you.' },
      ]),
      11000,
    );
    expect(transcript.text).toBe('And so my fellow Americans, ask not what your country can do for you.');
  });

  it('clamps to the audio duration, orders, and drops empty segments', () => {
    const transcript = parseWhisperJson(
      whisperJson([
        { from: 3000, to: 25360, text: ' 三' },
        { from: 760, to: 500, text: ' 一' },
        { from: 2000, to: 2500, text: '   ' },
        { from: 12000, to: 13000, text: ' 后' },
      ]),
      11000,
    );
    expect(transcript.segments).toEqual([
      { startMs: 760, endMs: 760, text: '一' },
      { startMs: 3000, endMs: 11000, text: '三' },
      { startMs: 11000, endMs: 11000, text: '后' },
    ]);
  });

  it('survives raw control characters and invalid UTF-8 that whisper-cli writes unescaped', () => {
    const broken = Buffer.concat([Buffer.from(' 你'), Buffer.from([0xe5, 0xa5]), Buffer.from('\t好\n\u0001'), Buffer.from([0xff])]);
    const transcript = parseWhisperJson(whisperJson([{ from: 0, to: 900, text: broken }]), 1000);
    expect(transcript.segments).toEqual([{ startMs: 0, endMs: 900, text: '你 好' }]);
    expect(transcript.text).not.toContain('\uFFFD');
  });

  it('keeps escaped quotes and backslashes', () => {
    const transcript = parseWhisperJson(whisperJson([{ from: 0, to: 10, text: 'say \\"hi\\" C:\\\\x' }]), 100);
    expect(transcript.text).toBe('say "hi" C:\\x');
  });

  it('an output that is not whisper JSON is an engine failure', () => {
    expect(() => parseWhisperJson(Buffer.from('not json'), 1000)).toThrow(expect.objectContaining({ kind: 'engine_failed' }));
    expect(() => parseWhisperJson(Buffer.from('{"result":{}}'), 1000)).toThrow(expect.objectContaining({ kind: 'engine_failed' }));
  });

  it('an empty transcription is an empty transcript', () => {
    expect(parseWhisperJson(whisperJson([]), 1000)).toEqual({ text: '', segments: [] });
  });
});

describe('escapeControlCharsInStrings', () => {
  it('escapes only inside strings, leaving the layout whitespace', () => {
    expect(escapeControlCharsInStrings('{\n\t"a": "x\ty\u0001"\n}')).toBe('{\n\t"a": "x\\u0009y\\u0001"\n}');
  });

  it('tracks escaped quotes', () => {
    expect(escapeControlCharsInStrings('["a\\"\n", "\n"]')).toBe('["a\\"\\u000a", "\\u000a"]');
  });
});

describe('joinSegmentTexts', () => {
  it.each([
    [['你好', '世界'], '你好世界'],
    [['CT', '显示右肺结节'], 'CT显示右肺结节'],
    [['右肺', 'T2N1M0'], '右肺T2N1M0'],
    [['hello', 'world'], 'hello world'],
    [['one,', 'two.'], 'one, two.'],
    [['好。', '下一句'], '好。下一句'],
    [['𠀀', 'a'], '𠀀a'],
    [['', 'x', ''], 'x'],
  ])('%j → %s', (texts, joined) => {
    expect(joinSegmentTexts(texts)).toBe(joined);
  });
});
