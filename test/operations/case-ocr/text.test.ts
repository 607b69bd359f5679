import { describe, expect, it } from 'vitest';
import { joinLine, removeCjkSpaces } from '../../../src/engines/ocr/line-text.js';
import { pageFromBlocks } from '../../../src/engines/ocr/tesseract/blocks.js';
import { mergeRefined } from '../../../src/operations/case-ocr/refine.js';

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

describe('LLM refinement of patient_info', () => {
  const text = '姓名：张三  性别：男  年龄：56岁\n临床诊断：右肺上叶腺癌\n病理分期：IIIA期';
  const rules = { name: '张三', age: '56', cancer_type: '肺癌', stage: 'IIIA' };

  it('takes model values that appear in the OCR text, normalising age, cancer type and stage', () => {
    const answer = { name: '张三', age: '56岁', cancer_type: '右肺上叶腺癌', stage: 'IIIA期' };
    expect(mergeRefined({ ...rules, cancer_type: null, stage: null }, answer, text)).toEqual({
      name: '张三',
      age: '56',
      cancer_type: '肺癌',
      stage: 'IIIA',
    });
  });

  it('keeps the rules\' cancer type where the model names a term the synonym table has no type for', () => {
    expect(mergeRefined(rules, { ...rules, cancer_type: '腺癌' }, text).cancer_type).toBe('肺癌');
  });

  it('keeps the rules where the model invents, omits or misformats a value', () => {
    const invented = { name: '李四', age: '五十六', cancer_type: '胃癌', stage: null };
    expect(mergeRefined(rules, invented, text)).toEqual(rules);
    expect(mergeRefined({ name: null, age: null, cancer_type: null, stage: null }, invented, text)).toEqual({
      name: null,
      age: null,
      cancer_type: null,
      stage: null,
    });
  });
});
