import { describe, expect, it } from 'vitest';
import type { OcrPage, OcrWord } from '../../../src/engines/types.js';
import { findPersonalData } from '../../../src/operations/personal-data/index.js';
import { cancerTypeOf } from '../../../src/operations/personal-data/cancer-types.js';
import { ageFromValue, ageInText, readPatientInfo, stageFromValue, stageInText } from '../../../src/operations/personal-data/patient-info.js';

const CHAR_WIDTH = 20;
const ROW_HEIGHT = 40;
const TEXT_HEIGHT = 30;

function word(text: string, column: number, row: number, line = row): OcrWord {
  const y0 = row * ROW_HEIGHT;
  return { text, confidence: 90, line, box: { x0: column * CHAR_WIDTH, y0, x1: (column + text.length) * CHAR_WIDTH, y1: y0 + TEXT_HEIGHT } };
}

function pageOfWords(words: OcrWord[]): OcrPage {
  const lines = new Map<number, string[]>();
  for (const { line, text } of words) lines.set(line, [...(lines.get(line) ?? []), text]);
  const text = [...lines.entries()].sort(([a], [b]) => a - b).map(([, texts]) => texts.join(' ')).join('\n');
  return { text, words, width: 2000, height: 2000, confidence: 90, rotation: 0, deskewRadians: 0 };
}

/**
 * A page laid out as the strings are: one row per string, a cell per run of text between two or
 * more spaces, at its string position (a column per character), so a table is written aligned.
 */
function page(...rows: string[]): OcrPage {
  return pageOfWords(rows.flatMap((row, index) => [...row.matchAll(/\S+(?: \S+)*/gu)].map((cell) => word(cell[0], cell.index, index))));
}

const info = (...rows: string[]) => readPatientInfo([page(...rows)]);

describe('name after a patient label on its line, as the de-identification finds it', () => {
  it.each([
    ['姓名：张三', '张三'],
    ['姓 名: 李秀英  性别：女', '李秀英'],
    ['姓名 孟丁  性别 男', '孟丁'],
    ['姓名:张三性别:男年龄: 56 岁', '张三'],
    ['患者姓名：欧阳明华', '欧阳明华'],
    ['病人姓名：赵敏  年龄：40岁', '赵敏'],
    ['患者：王建国，男，63岁', '王建国'],
    ['姓名：阿依古丽·买买提', '阿依古丽·买买提'],
    // The 姓 of 姓名 lost on a photo.
    ['名孟丁  性别男  年龄 2岁', '孟丁'],
    ['Name: John Smith  Age: 61', 'John Smith'],
    ['Patient Name: Mary Ann Lee', 'Mary Ann Lee'],
    ['Patient: Robert Ellis  Sex: M', 'Robert Ellis'],
    // A surname read with a stray capital I is kept whole.
    ['Patient: Robert EIlis  Sex: M  Age: 58', 'Robert EIlis'],
    ['PATIENT NAME: Li Na  DOB: 1970-01-02', 'Li Na'],
    ['Pt: Anna Berg', 'Anna Berg'],
    ['Pt. Name: Carlos Diaz  Age: 44', 'Carlos Diaz'],
    ['Pt Name Wei Zhang', 'Wei Zhang'],
    // One letter misread in a long label.
    ['Patiet: John Smith', 'John Smith'],
  ])('%s → %s', (line, name) => {
    expect(info(line).name).toBe(name);
    const detected = findPersonalData(line).detections.filter((detection) => detection.kind === 'name');
    expect(detected.map((detection) => line.slice(detection.start, detection.end))).toContain(name);
  });

  it.each([
    ['Patient:JamesWhitfield  Sex: M', 'JamesWhitfield', 'James Whitfield'],
    ['Name: MaryAnnLee', 'MaryAnnLee', 'Mary Ann Lee'],
    ['Patient: WeiZhang', 'WeiZhang', 'Wei Zhang'],
    ['Name: John McDonald', 'John McDonald', 'John McDonald'],
    ['Name: JohnMcDonald', 'JohnMcDonald', 'John McDonald'],
    ['Name: Anna MacArthur', 'Anna MacArthur', 'Anna MacArthur'],
    ['Name: Luca DeLuca', 'Luca DeLuca', 'Luca DeLuca'],
  ])('%s: the de-identification finds %s, case-ocr returns %s (OCR dropped a space; a particle is no word)', (line, detected, name) => {
    expect(info(line).name).toBe(name);
    const found = findPersonalData(line).detections.filter((detection) => detection.kind === 'name');
    expect(found.map((detection) => line.slice(detection.start, detection.end))).toContain(detected);
  });

  it('reads a name whose label was not read at all from the cell before 性别, as the de-identification does', () => {
    const line = '孟丁  性别男  年龄 2岁';
    const photo = pageOfWords([word(line, 0, 0)]);
    expect(readPatientInfo([photo])).toMatchObject({ name: '孟丁', age: '2' });
    expect(findPersonalData(line).detections).toMatchObject([{ start: 0, end: 2, kind: 'name', rule: 'name-before-sex' }]);
  });

  it.each([
    ['姓名：性别：男'],
    ['姓名：男'],
    ['性别：男 年龄：56岁'],
    ['患者自述咳嗽两月'],
    ['姓名：'],
    ['name: lower case words'],
    ['签名：张医生'],
    ['送检医生：李明'],
    ['Physician Name: Dr. Lee'],
    ['Reported by: John Smith'],
    ['Pt presented with cough'],
    ['PT: 12.5 s  INR: 1.1'],
    ['名单  已审核'],
  ])('%s → no name', (line) => {
    expect(info(line).name).toBeNull();
  });
});

describe('values where the layout puts them', () => {
  it('reads a table header row over its value row, in both languages', () => {
    expect(
      info(
        '姓名      性别    年龄    临床诊断',
        '张三      男      56岁    右肺上叶腺癌',
      ),
    ).toEqual({ name: '张三', age: '56', cancer_type: '肺癌', stage: null });
    expect(
      info(
        'Patient Name     Sex    Age    Diagnosis',
        'Mary Ellis       F      47     Invasive ductal carcinoma',
      ),
    ).toEqual({ name: 'Mary Ellis', age: '47', cancer_type: 'breast cancer', stage: null });
  });

  it('reads the value in the next cell of a row that OCR cut into two lines', () => {
    const cut = pageOfWords([word('姓名：', 0, 0, 0), word('孟丁', 5, 0, 1), word('年龄：', 12, 0, 2), word('2岁', 16, 0, 3)]);
    expect(readPatientInfo([cut])).toMatchObject({ name: '孟丁', age: '2' });
  });

  it('takes the name from the cell below its label, not a run of other text read on the label\'s row', () => {
    // A tilted photo: the table's title read on the row of 姓名, its name in the cell below.
    expect(
      info(
        '姓名          苏州市立第二医院病理诊断报告单',
        '陈志强        性别    年龄',
      ).name,
    ).toBe('陈志强');
    // With nothing below, a run no name can be told apart in gives no name, on the line or below it.
    expect(info('姓名          苏州市立第二医院病理诊断报告单').name).toBeNull();
    expect(info('姓名', '苏州市立第二医院病理诊断报告单').name).toBeNull();
  });

  it('reads a stage that stands alone on the line below its label', () => {
    expect(info('病理分期', 'IA3').stage).toBe('IA3');
    expect(info('Stage:', 'pT2N1M0').stage).toBe('pT2N1M0');
  });

  it('reads labels joined by slashes, their values joined the same way, on the line or in the cell below', () => {
    expect(info('性别/年龄：男/56岁').age).toBe('56');
    expect(info('Age/Sex: 58/M').age).toBe('58');
    expect(info('Sex / Age: F / 61Y').age).toBe('61');
    expect(info('Age/Sex', '58/M').age).toBe('58');
    expect(info('Diagnosis/Stage: lung adenocarcinoma/IIIA')).toMatchObject({ cancer_type: 'lung cancer', stage: 'IIIA' });
  });

  it('reads nothing from slash-joined labels whose value is not given part for part', () => {
    expect(info('年龄/性别: 3个月/女').age).toBeNull();
    expect(info('Age/Date: 58/2024/03/14').age).toBeNull();
  });

  it('reads several fields on one line up to the next label', () => {
    expect(info('Patient: Robert EIlis  Sex: M  Age: 58  Diagnosis: Hepatocellular carcinoma  Stage: IIB')).toEqual({
      name: 'Robert EIlis', age: '58', cancer_type: 'liver cancer', stage: 'IIB',
    });
  });

  it('takes the stage from any file of a request', () => {
    const first = page('姓名：张三  年龄：61岁', '临床诊断：左肺上叶腺癌');
    const second = page('病理报告', '病理分期：IA3期');
    expect(readPatientInfo([first, second])).toEqual({ name: '张三', age: '61', cancer_type: '肺癌', stage: 'IA3' });
  });

  it('returns no field without evidence on the page', () => {
    expect(info('血常规', '白细胞计数  3.86', '性别  男')).toEqual({ name: null, age: null, cancer_type: null, stage: null });
    expect(info('姓名', '', '', '', '性别  男')).toEqual({ name: null, age: null, cancer_type: null, stage: null });
    expect(readPatientInfo([])).toEqual({ name: null, age: null, cancer_type: null, stage: null });
  });
});

describe('age in whole years', () => {
  it.each([
    ['年龄：56岁', '56'],
    ['年 龄 2岁', '2'],
    ['年龄：72', '72'],
    ['年龄：45周岁', '45'],
    ['Age: 45 years', '45'],
    ['AGE 61', '61'],
    ['Age: 61Y', '61'],
    ['男，63岁，胃癌', '63'],
    ['A 61-year-old man with cough', '61'],
    ['58 y/o male, smoker', '58'],
    ['a 58yo man', '58'],
    ['58 y.o. F', '58'],
  ])('%s → %s', (line, age) => {
    expect(info(line).age).toBe(age);
  });

  it.each([['年龄：3个月'], ['年龄：15天'], ['年龄：156岁'], ['年龄：0岁'], ['Age: 8 months'], ['随访2.5岁以上'], ['门诊号 20240315'], ['白细胞 5.62'], ['维生素B12yo'], ['2.5yo']])(
    '%s → null',
    (line) => {
      expect(info(line).age).toBeNull();
    },
  );

  it('reads a value and free text apart', () => {
    expect(ageFromValue('56 岁')).toBe('56');
    expect(ageFromValue('未知')).toBeNull();
    expect(ageInText('患者，女，47岁')).toBe('47');
  });
});

describe('cancer type through the synonym table, in the diagnosis language', () => {
  it.each([
    ['临床诊断：右肺上叶腺癌', '肺癌'],
    ['诊断：非小细胞肺癌', '肺癌'],
    ['诊断：肺腺癌', '肺癌'],
    ['诊断：左乳浸润性导管癌', '乳腺癌'],
    ['病理诊断: 胃窦部腺癌', '胃癌'],
    ['入院诊断：直肠癌术后', '直肠癌'],
    ['诊断：肝细胞癌', '肝癌'],
    ['弥漫大B细胞淋巴瘤', '淋巴瘤'],
    ['Diagnosis: lung adenocarcinoma', 'lung cancer'],
    ['Diagnosis: Hepatocellular carcinoma, moderately differentiated', 'liver cancer'],
    ['Diagnosis: Invasive ductal carcinoma of the left breast', 'breast cancer'],
    ['Diagnosis: invasive ductal carcinoma', 'breast cancer'],
    ['Diagnosis: Adenocarcinoma of the lung', 'lung cancer'],
    ['Pathology: adenocarcinoma of the right upper lobe of the lung', 'lung cancer'],
    ['Diagnosis: Adenocarcinoma of the rightlung', 'lung cancer'],
    ['Diagnosis: leftbreast invasive ductal carcinoma', 'breast cancer'],
    ['Impression: non-small cell lung cancer (NSCLC)', 'lung cancer'],
    ['Diagnosis: gastric adenocarcinoma', 'gastric cancer'],
    ['Diagnosis: squamous cell carcinoma of the esophagus', 'esophageal cancer'],
    ['Diagnosis: diffuse large B-cell lymphoma', 'lymphoma'],
    // An organ and 癌 with the site and histology between them, as pathology reports write it.
    ['病理诊断：宫颈鳞状细胞癌', '宫颈癌'],
    ['诊断：前列腺腺癌', '前列腺癌'],
    ['诊断：左肾透明细胞癌', '肾癌'],
    ['诊断：鼻咽未分化型非角化性癌', '鼻咽癌'],
    ['诊断：胆囊腺癌', '胆囊癌'],
    ['诊断：喉鳞状细胞癌', '喉癌'],
    ['诊断：子宫内膜样腺癌', '子宫内膜癌'],
    ['诊断：肝内胆管细胞癌', '胆管癌'],
    ['诊断：甲状腺乳头状癌', '甲状腺癌'],
    ['诊断：舌鳞癌', '口腔癌'],
  ])('%s → %s', (line, type) => {
    expect(info(line).cancer_type).toBe(type);
  });

  it('prefers the diagnosis over other mentions', () => {
    expect(info('家族史：母亲乳腺癌', '诊断：胃癌').cancer_type).toBe('胃癌');
    expect(info('Family history: mother had breast cancer', 'Diagnosis: adenocarcinoma of the stomach').cancer_type).toBe('gastric cancer');
  });

  it.each([['排除肺癌'], ['否认肝癌病史'], ['未见癌细胞'], ['血常规检查'],
    // A negation or a metastasis between the organ and 癌, another organ, or no organ at all.
    ['胃镜未见癌'], ['乳腺未见癌'], ['食管未见癌'], ['肺转移腺癌'], ['肾上腺皮质癌'], ['乳头状癌'], ['诊断：肺炎'], ['No evidence of lymphoma'], ['Negative for carcinoma of the breast']])(
    '%s → null',
    (text) => {
      expect(cancerTypeOf(text)).toBeNull();
    },
  );
});

describe('stage', () => {
  it.each([
    ['病理分期：IIIA期 (T2N2M0)', 'IIIA'],
    ['分期：Ⅲb', 'IIIB'],
    ['临床分期 4期', 'IV'],
    ['Stage IIB', 'IIB'],
    ['stage: I', 'I'],
    ['Stage IA3', 'IA3'],
    ['分期：IA3', 'IA3'],
    ['ⅣA期', 'IVA'],
    ['Ⅲ期', 'III'],
    ['cT2aN2M0', 'cT2aN2M0'],
    ['pT3 N1 M0', 'pT3N1M0'],
    ['TisN0M0', 'TisN0M0'],
    ['病理分期: 1IB 期', 'IIB'],
    ['分期：l期', 'I'],
    ['病理分期: INIA 期 T2N2M0)', 'T2N2M0'],
    ['分期：3期', 'III'],
    ['病理分期：I川IA期(T2N2M0)', 'IIIA'],
    ['病理分期：I川IIA期(T2N2M0)', 'IIIA'],
    ['分期：川B', 'IIIB'],
    ['Staging: IIIA', 'IIIA'],
    // OCR reads the 0 of N0 or M0 as the letter O.
    ['病理分期：pT2NOM0', 'pT2N0M0'],
    ['Stage: pT2NOMO', 'pT2N0M0'],
    ['TNM: T3N1MO', 'T3N1M0'],
    ['病理分期：II期（pT2NOM0）', 'II'],
    // Sentinel-node and micrometastasis notes stay as written.
    ['pT1cN0(sn)M0', 'pT1cN0(sn)M0'],
    ['ypT1N1miM0', 'ypT1N1miM0'],
  ])('%s → %s', (line, stage) => {
    expect(info(line).stage).toBe(stage);
  });

  it.each([['分期：待定'], ['第1批临床试验'], ['IT部门'], ['T2加权像'], ['白细胞计数 4.00~10.00'], ['编号 1IB 期'], ['IA3'], ['staging 3 weeks ago'], ['NOMO'], ['Staging: pending']])('%s → null', (line) => {
    expect(info(line).stage).toBeNull();
  });

  it('reads a label value and free text apart', () => {
    expect(stageFromValue('IIIA期 (T2N2M0)')).toBe('IIIA');
    expect(stageFromValue('待定')).toBeNull();
    expect(stageInText('术后病理 ⅡB期')).toBe('IIB');
  });
});
