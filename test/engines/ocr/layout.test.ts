import { describe, expect, it } from 'vitest';
import { joinLine, pageFromBlocks, removeCjkSpaces } from '../../../src/engines/ocr/layout.js';

describe('OCR text layout', () => {
  it.each([
    ['市 第 一 人 民 医 院', '市第一人民医院'],
    ['姓 名 : 张 三', '姓名:张三'],
    ['年龄 : 56 岁', '年龄: 56 岁'],
    ['门诊号 : 20240315 科室', '门诊号: 20240315 科室'],
    ['白细胞 计数 5.62 10^9/L', '白细胞计数 5.62 10^9/L'],
    ['Stage IIIA 期', 'Stage IIIA 期'],
    ['（ 右 肺 ）', '（右肺）'],
  ])('%s → %s', (input, output) => {
    expect(removeCjkSpaces(input)).toBe(output);
  });

  it('joins words into lines and lines in reading order, keeping every word with its box', () => {
    const word = (text: string, x0: number, confidence = 90) => ({ text, confidence, bbox: { x0, y0: 0, x1: x0 + 10, y1: 10 } });
    const page = pageFromBlocks([
      {
        paragraphs: [
          { lines: [{ words: [word('姓', 0), word('名', 10), word(' ', 20), word('张', 30, 70)] }] },
          { lines: [{ words: [word('Stage', 0), word('IIIA', 60)] }, { words: [] }] },
        ],
      },
    ]);
    expect(page.text).toBe('姓名张\nStage IIIA');
    expect(page.words.map((w) => w.text)).toEqual(['姓', '名', '张', 'Stage', 'IIIA']);
    expect(page.words[2]!.box).toEqual({ x0: 30, y0: 0, x1: 40, y1: 10 });
    expect(page.words.map((w) => w.line)).toEqual([0, 0, 0, 1, 1]);
    expect(page.confidence).toBe(86);
    expect(joinLine([' a ', '', 'b'])).toBe('a b');
  });
});
