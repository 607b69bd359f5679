import { describe, expect, it } from 'vitest';
import { findPersonalData } from '../../../src/operations/personal-data/index.js';
import { slices } from './slices.js';

const redacted = (line: string) => slices(line, findPersonalData(line).detections);

describe('contact persons and relatives: names and phone numbers', () => {
  it.each([
    ['Emergency contact: Mary Smith (wife), (555) 123-4567', ['Mary Smith', '(555) 123-4567']],
    ['Next of kin: John Doe (son) Tel (617) 555-0142', ['John Doe', '(617) 555-0142']],
    ['Contact person: Li Wei, +86 139 1234 5678', ['Li Wei', '+86 139 1234 5678']],
    ['Guardian: Anna Lee   Relationship: mother', ['Anna Lee']],
    ['Spouse: Peter Brown, mobile 555-201-7788', ['Peter Brown', '555-201-7788']],
    ['紧急联系人：郑丽（女儿） 138 0512 3366', ['郑丽', '138 0512 3366']],
    ['紧急联系人：徐丽  电话：15850123456', ['徐丽', '15850123456']],
    ['联系人：张伟 关系：父子 联系电话：13912345678', ['张伟', '13912345678']],
    ['家属：儿子 张伟 13812345678', ['张伟', '13812345678']],
    ['家属：女儿郑丽', ['郑丽']],
    ['患者家属郑丽代诉病史，单位电话021-12345678', ['郑丽', '021-12345678']],
    ['监护人：周慧敏  座机(010) 8888-6666 或 0755 1234 5678', ['周慧敏', '(010) 8888-6666', '0755 1234 5678']],
    ['配偶周慧敏，手机+86 139-1234-5678', ['周慧敏', '+86 139-1234-5678']],
    ['母亲王秀英陪同入院', ['王秀英']],
    ['联系人电话：0512-65281234', ['0512-65281234']],
    ['联系方式：13812345678', ['13812345678']],
    ['紧急联系人姓名：王芳 紧急联系人电话：13700001111', ['王芳', '13700001111']],
  ])('%s', (line, expected) => {
    expect(redacted(line)).toEqual(expected);
  });

  it.each([
    ['家族史：父亲因肺癌去世'],
    ['父亲：高血压病史'],
    ['母亲宫颈癌病史'],
    ['婚育史：配偶体健，育有1子1女'],
    ['配偶：健康'],
    ['儿子陪同就诊'],
    ['家属知情同意'],
    ['患者家属'],
    ['与患者关系：女儿'],
    ['Family history: mother had breast cancer'],
    ['legal guardian present at consent'],
  ])('nothing in %s', (line) => {
    expect(findPersonalData(line)).toEqual({ detections: [], openLabels: [] });
  });

  it('takes a relation word before a name for no open label: the value is on the line', () => {
    const line = '联系人：女儿郑丽';
    expect(findPersonalData(line)).toEqual({ detections: [{ start: 6, end: 8, kind: 'name', rule: 'labelled-value' }], openLabels: [] });
  });
});
