import { describe, expect, it } from 'vitest';
import { findPersonalData, isPersonalLabel, mergeDetections } from '../../src/operations/deidentify/detectors/index.js';
import type { Detection } from '../../src/operations/deidentify/detectors/index.js';
import { slices } from './deid-slices.js';

function redacted(line: string): string[] {
  return slices(line, findPersonalData(line).detections);
}

describe('findPersonalData: whole lines, exact redacted substrings', () => {
  it.each([
    ['姓名:孟丁 性别:男 年龄:2岁 门诊号:90051065', ['孟丁', '90051065']],
    ['送检医生:董薇 审核者:樊一笋 检验者:29028', ['董薇', '樊一笋', '29028']],
    ['发票号码:01425472', ['01425472']],
    ['sample No 20160824XXS0025', ['20160824XXS0025']],
    ['样本号:20160824XXS0025 标本类型:血清 送检日期:2016-08-24', ['20160824XXS0025']],
    ['姓 名 ：张三 性 别 ：女 身份证号：11010519491231002X 电话 13812345678', ['张三', '11010519491231002X', '13812345678']],
    ['患者张三，男，63岁，因咳嗽就诊，联系电话0512-67780000', ['张三', '0512-67780000']],
    ['Patient ID: MRN00123456 Name: John Smith DOB: 1968-03-12', ['MRN00123456', 'John Smith', '1968-03-12']],
    ['家住苏州市姑苏区人民路100号，邮箱 li@example.com', ['苏州市姑苏区人民路100号', 'li@example.com']],
    ['复查 单号 201608240025 出报告', ['201608240025']],
  ])('%s', (line, expected) => {
    expect(redacted(line)).toEqual(expected);
  });

  it.each([
    ['白细胞计数 3.86 10^9/L 3.5-9.5'],
    ['病理分期：IIIA期 (T2N2M0)'],
    ['临床诊断：右肺上叶腺癌'],
    ['报告日期：2016-08-24'],
    ['年龄：56岁'],
    ['性别：男'],
    ['血小板计数 171 125-350'],
    ['中性粒细胞百分比 60.5 % 40.0～75.0'],
    ['Ki-67(+60%) ，ICD-10 C34.1，肿块 3.2×2.1cm'],
    ['苏州大学附属第一医院 检验科 检验报告单'],
    ['患者于2016-08-24行右肺上叶切除术'],
  ])('clinical line %s: nothing', (line) => {
    expect(findPersonalData(line)).toEqual({ detections: [], openLabels: [] });
  });

  it('gives the specific kind when a labelled value and the catch-all overlap', () => {
    const line = '身份证号:11010519491231002X';
    expect(findPersonalData(line).detections).toEqual([{ start: 5, end: 23, kind: 'resident_id', rule: 'labelled-value' }]);
  });

  it('reports open labels of table headers', () => {
    expect(findPersonalData('姓名 性别 年龄 住院号').openLabels.map((label) => label.kind)).toEqual(['name', 'hospital_id']);
  });
});

describe('mergeDetections', () => {
  const at = (start: number, end: number, kind: Detection['kind'], rule = 'test'): Detection => ({ start, end, kind, rule });

  it('unions overlaps, sorts, keeps the first specific kind', () => {
    expect(mergeDetections([at(10, 14, 'phone'), at(0, 5, 'identifier', 'a'), at(3, 8, 'name', 'b'), at(12, 20, 'identifier')])).toEqual([
      at(0, 8, 'name', 'b'),
      at(10, 20, 'phone'),
    ]);
  });

  it('keeps touching spans apart', () => {
    expect(mergeDetections([at(0, 3, 'name'), at(3, 6, 'phone')])).toEqual([at(0, 3, 'name'), at(3, 6, 'phone')]);
  });
});

describe('isPersonalLabel', () => {
  it.each([
    ['姓名：', 'name'],
    ['姓 名', 'name'],
    ['  患者姓名: ', 'name'],
    ['MRN', 'hospital_id'],
    ['mrn.', 'hospital_id'],
    ['Patient ID:', 'hospital_id'],
    ['门诊号', 'hospital_id'],
    ['出生日期', 'birth_date'],
    ['DOB', 'birth_date'],
    ['身份证号码', 'resident_id'],
    ['联系电话：', 'phone'],
    ['医保卡号', 'insurance_number'],
    ['Passport No.', 'passport'],
    ['E-mail', 'email'],
    ['现住址', 'address'],
  ])('%s → %s', (text, kind) => {
    expect(isPersonalLabel(text)).toBe(kind);
  });

  it.each([['性别：'], ['年龄'], ['临床诊断'], ['检验科'], ['患者信息'], ['姓名张三'], ['张三'], [''], ['Date']])('%s → undefined', (text) => {
    expect(isPersonalLabel(text)).toBeUndefined();
  });
});
