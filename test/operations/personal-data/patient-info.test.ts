import { describe, expect, it } from 'vitest';
import { extractAge, extractCancerType, extractName, extractPatientInfo, extractStage } from '../../../src/operations/personal-data/patient-info.js';

describe('patient name', () => {
  it.each([
    ['姓名：张三', '张三'],
    ['姓 名: 李秀英  性别：女', '李秀英'],
    ['姓名 孟丁 性别 男', '孟丁'],
    ['姓名:张三性别:男年龄: 56 岁', '张三'],
    ['患者姓名：欧阳明华', '欧阳明华'],
    ['患者：王建国，男，63岁', '王建国'],
    ['姓名：阿依古丽·买买提', '阿依古丽·买买提'],
    ['Name: John Smith Age: 61', 'John Smith'],
    ['Patient Name: Mary Ann Lee', 'Mary Ann Lee'],
  ])('%s → %s', (text, name) => {
    expect(extractName(text)).toBe(name);
  });

  it.each([
    ['姓名：性别：男'],
    ['姓名：男'],
    ['性别：男 年龄：56岁'],
    ['患者自述咳嗽两月'],
    ['姓名：'],
    ['name: lower case words'],
    ['签名：张医生'],
  ])('%s → null', (text) => {
    expect(extractName(text)).toBeNull();
  });
});

describe('patient age (digits only, years)', () => {
  it.each([
    ['年龄：56岁', '56'],
    ['年龄: 56 岁', '56'],
    ['年 龄 2岁', '2'],
    ['年龄：72', '72'],
    ['男，63岁，胃癌', '63'],
    ['Age: 45 years', '45'],
    ['AGE 61', '61'],
    ['年龄：45周岁', '45'],
  ])('%s → %s', (text, age) => {
    expect(extractAge(text)).toBe(age);
  });

  it.each([
    ['年龄：3个月'],
    ['年龄：15天'],
    ['年龄：156岁'],
    ['年龄：0岁'],
    ['随访2.5岁以上'],
    ['门诊号 20240315'],
    ['白细胞 5.62'],
  ])('%s → null', (text) => {
    expect(extractAge(text)).toBeNull();
  });
});

describe('cancer type', () => {
  it.each([
    ['临床诊断：右肺上叶腺癌', '肺腺癌'],
    ['诊断：非小细胞肺癌', '非小细胞肺癌'],
    ['诊断：左乳浸润性导管癌', '乳腺癌'],
    ['病理诊断: 胃窦部腺癌', '胃癌'],
    ['入院诊断：直肠癌术后', '直肠癌'],
    ['Diagnosis: lung adenocarcinoma', 'lung adenocarcinoma'],
    ['既往史：高血压。\n诊断：鼻咽癌', '鼻咽癌'],
    ['弥漫大B细胞淋巴瘤', '淋巴瘤'],
  ])('%s → %s', (text, type) => {
    expect(extractCancerType(text)).toBe(type);
  });

  it('prefers the diagnosis line over other mentions', () => {
    expect(extractCancerType('家族史：母亲乳腺癌\n诊断：胃癌')).toBe('胃癌');
  });

  it.each([['排除肺癌'], ['否认肝癌病史'], ['未见癌细胞'], ['血常规检查'], ['诊断：肺炎']])('%s → null', (text) => {
    expect(extractCancerType(text)).toBeNull();
  });
});

describe('stage', () => {
  it.each([
    ['病理分期：IIIA期 (T2N2M0)', 'IIIA'],
    ['分期：Ⅲb', 'IIIB'],
    ['临床分期 4期', 'IV'],
    ['Stage IIB', 'IIB'],
    ['stage: I', 'I'],
    ['ⅣA期', 'IVA'],
    ['cT2aN2M0', 'cT2aN2M0'],
    ['pT3 N1 M0', 'pT3N1M0'],
    ['TisN0M0', 'TisN0M0'],
    ['病理分期: 1IB 期', 'IIB'],
    ['分期：l期', 'I'],
    ['病理分期: INIA 期 T2N2M0)', 'T2N2M0'],
    ['分期：3期', 'III'],
    ['病理分期：I川IA期(T2N2M0)', 'IIIA'],
    ['分期：川B', 'IIIB'],
  ])('%s → %s', (text, stage) => {
    expect(extractStage(text)).toBe(stage);
  });

  it.each([['分期：待定'], ['第1批临床试验'], ['IT部门'], ['T2加权像'], ['白细胞计数 4.00~10.00'], ['编号 1IB 期']])(
    '%s → null',
    (text) => {
      expect(extractStage(text)).toBeNull();
    },
  );
});

describe('a whole report', () => {
  it('reads every field of a report header and null for the fields it lacks', () => {
    const report = '市第一人民医院病理诊断报告单\n姓名：张三  性别：男  年龄：56岁\n临床诊断：右肺上叶腺癌\n病理分期：IIIA期 (T2N2M0)';
    expect(extractPatientInfo(report)).toEqual({ name: '张三', age: '56', cancer_type: '肺腺癌', stage: 'IIIA' });
    expect(extractPatientInfo('血常规\n白细胞计数 3.86\n性别 男')).toEqual({ name: null, age: null, cancer_type: null, stage: null });
  });
});
