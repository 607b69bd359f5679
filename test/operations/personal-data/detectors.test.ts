import { describe, expect, it } from 'vitest';
import { findPersonalData, isPersonalLabel, mergeDetections } from '../../../src/operations/personal-data/index.js';
import type { Detection } from '../../../src/operations/personal-data/index.js';
import { groundTruth } from '../../../scripts/lib/ocr-fixtures.js';
import { CLINICAL_LINES, slices } from './slices.js';

function redacted(line: string): string[] {
  return slices(line, findPersonalData(line).detections);
}

/** Synthetic clinical report text: none of it is personal, so nothing may be redacted. */
const CLINICAL_REPORT = `苏州大学附属第一医院检验报告单
项目 结果 单位 参考范围
白细胞计数(WBC) 3.86 10^9/L 3.5-9.5
红细胞计数(RBC) 4.12 10^12/L 4.3-5.8
血红蛋白(HGB) 122 g/L 130-175
血小板计数(PLT) 171 10^9/L 125-350
中性粒细胞百分比 60.5 % 40.0～75.0
谷丙转氨酶 ALT 35 U/L 9-50
癌胚抗原 CEA 5.62 ng/ml 0-5
CA19-9 37.5 U/ml <37
采样时间:2016-08-24 08:30 接收时间:2016-08-24 09:12
报告时间:2016-08-24 11:05
*本报告仅对此标本负责
检查所见:右肺上叶见一大小约3.2×2.1cm软组织肿块影,边缘见分叶及毛刺。
纵隔内见多发肿大淋巴结,最大短径约1.5cm。
诊断意见:右肺上叶占位,考虑周围型肺癌,伴纵隔淋巴结转移。
病理诊断:(右肺上叶)浸润性腺癌,腺泡型为主(70%),乳头型(20%),实体型(10%)。
免疫组化:TTF-1(+),NapsinA(+),Ki-67(约30%+),CK7(+),P40(-),ALK(D5F3)(-)
基因检测:EGFR 19del 突变,丰度12.3%;ALK融合阴性;ROS1阴性;PD-L1(22C3) TPS 50%
pT2aN2M0, IIIA期(AJCC第8版)
患者于2016年8月行胸腔镜下右肺上叶切除术+纵隔淋巴结清扫术,术后恢复良好。
患者术后行培美曲塞+顺铂方案化疗4周期,末次化疗时间2016-12-20。
患者自述咳嗽两月,无发热,无胸痛。既往高血压病史10年,规律服药。
查体:T 36.5℃ P 80次/分 R 18次/分 BP 130/80mmHg
医师建议:定期复查胸部CT,每3个月一次。
检验科 主管技师 第1页/共2页
ICD-10:C34.1 右肺上叶恶性肿瘤
Patient was admitted for evaluation of a right upper lobe mass.
CT chest: 3.2 x 2.1 cm spiculated mass in RUL, mediastinal lymphadenopathy.
Impression: Stage IIIA (T2aN2M0) adenocarcinoma of lung, EGFR exon 19 deletion.
Plan: Osimertinib 80 mg daily, follow-up in 3 months.
Date: 2016-08-24 Time: 08:30
WBC 3.86 x10^9/L (3.5-9.5)
药品名称 数量 单价 金额
培美曲塞二钠注射液 2 1280.00 2560.00
合计金额 12345.60 元
标本类型:血清 标本性状:正常
检验方法:电化学发光法 仪器:Cobas e601
病区:胸外科一病区 床位:12
患者病情稳定,家属知情同意。
入院日期:2016-08-20 出院日期:2016-09-02 住院天数:13天`;

describe('findPersonalData: whole lines, exact redacted substrings', () => {
  it.each([
    ['姓名:孟丁 性别:男 年龄:2岁 门诊号:90051065', ['孟丁', '90051065']],
    ['送检医生:董薇 审核者:樊一笋 检验者:29028', ['董薇', '樊一笋', '29028']],
    ['姓名:孟丁性别:男年龄:2岁门诊号:90051065', ['孟丁', '90051065']],
    ['送检医生:董薇审核者:樊一笋检验者: 29028', ['董薇', '樊一笋', '29028']],
    ['发票号码:01425472', ['01425472']],
    ['sample No 20160824XXS0025', ['20160824XXS0025']],
    ['样本号:20160824XXS0025 标本类型:血清 送检日期:2016-08-24', ['20160824XXS0025']],
    ['姓 名 ：张三 性 别 ：女 身份证号：11010519491231002X 电话 13812345678', ['张三', '11010519491231002X', '13812345678']],
    ['患者张三，男，63岁，因咳嗽就诊，联系电话0512-67780000', ['张三', '0512-67780000']],
    ['Patient ID: MRN00123456 Name: John Smith DOB: 1968-03-12', ['MRN00123456', 'John Smith', '1968-03-12']],
    ['家住苏州市姑苏区人民路100号，邮箱 li@example.com', ['苏州市姑苏区人民路100号', 'li@example.com']],
    ['复查 单号 201608240025 出报告', ['201608240025']],
    ['姓名 王小明 性别 男 年龄 45岁 科室 肿瘤科 床号 12 住院号 0012345', ['王小明', '12', '0012345']],
    ['病人姓名:赵六   病历号:BL-2016-0001', ['赵六', 'BL-2016-0001']],
    ['就诊卡号:6217 0012 3456 7890', ['6217 0012 3456 7890']],
    ['户籍地址:河南省郑州市金水区花园路1号院3号楼2单元501室', ['河南省郑州市金水区花园路1号院3号楼2单元501室']],
    ['联系人:关羽 联系电话:13912345678', ['关羽', '13912345678']],
    ['MRN:00123456  Bed No:12 Ward: 5A', ['00123456', '12']],
    ['Name:WANG XIAOMING  Sex:M  Age:45', ['WANG XIAOMING']],
  ])('%s', (line, expected) => {
    expect(redacted(line)).toEqual(expected);
  });

  it.each([
    ...CLINICAL_LINES.map((line) => [line]),
    ['中性粒细胞百分比 60.5 % 40.0～75.0'],
    ['Ki-67(+60%) ，ICD-10 C34.1，肿块 3.2×2.1cm'],
    ['苏州大学附属第一医院 检验科 检验报告单'],
    ['患者于2016-08-24行右肺上叶切除术'],
  ])('clinical line %s: nothing', (line) => {
    expect(findPersonalData(line)).toEqual({ detections: [], openLabels: [] });
  });

  it.each(CLINICAL_REPORT.split('\n'))('report line %s: nothing', (line) => {
    expect(findPersonalData(line).detections).toEqual([]);
  });

  it('gives the specific kind when a labelled value and the catch-all overlap', () => {
    const line = '身份证号:11010519491231002X';
    expect(findPersonalData(line).detections).toEqual([{ start: 5, end: 23, kind: 'resident_id', rule: 'labelled-value' }]);
  });

  it.each([[''], ['   '], ['：：']])('empty line %j: nothing', (line) => {
    expect(findPersonalData(line)).toEqual({ detections: [], openLabels: [] });
  });

  it('reports open labels of table headers', () => {
    expect(findPersonalData('姓名 性别 年龄 住院号').openLabels.map((label) => label.kind)).toEqual(['name', 'hospital_id']);
  });
});

describe('findPersonalData on the rendered OCR fixtures (ground-truth text)', () => {
  const OUTPATIENT_NUMBER = '20240315';
  it.each(Object.entries(groundTruth()))('%s: exactly the names and the outpatient numbers', (_file, truth) => {
    const names = [...truth.text.matchAll(/姓名：(\p{Script=Han}+)/gu)].map((match) => match[1]!);
    const found = truth.text.split('\n').flatMap((line) => redacted(line));
    expect(names).toContain(truth.patient_info.name);
    expect(found.sort()).toEqual([...names, ...names.map(() => OUTPATIENT_NUMBER)].sort());
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
