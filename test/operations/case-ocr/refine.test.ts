import { describe, expect, it } from 'vitest';
import { mergeRefined } from '../../../src/operations/case-ocr/refine.js';

describe('LLM refinement of patient_info', () => {
  const text = '姓名：张三  性别：男  年龄：56岁\n临床诊断：右肺上叶腺癌\n病理分期：IIIA期';
  const rules = { name: '张三', age: '56', cancer_type: '肺腺癌', stage: 'IIIA' };

  it('takes model values that appear in the OCR text, normalising age and stage', () => {
    expect(mergeRefined({ ...rules, stage: null }, { name: '张三', age: '56岁', cancer_type: '腺癌', stage: 'IIIA期' }, text)).toEqual({
      name: '张三',
      age: '56',
      cancer_type: '腺癌',
      stage: 'IIIA',
    });
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
