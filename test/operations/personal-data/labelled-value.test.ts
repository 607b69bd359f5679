import { describe, expect, it } from 'vitest';
import { detectLabelledValues, labelsWithValues } from '../../../src/operations/personal-data/labelled-value.js';
import { CLINICAL_LINES, slices } from './slices.js';
import { findPersonalData, GUESSED_VALUE_RULE, startsWithLabel, UNREAD_VALUE_RULE } from '../../../src/operations/personal-data/index.js';

function values(line: string): string[] {
  return slices(line, detectLabelledValues(line).detections);
}

function kinds(line: string): string[] {
  return detectLabelledValues(line).detections.map((detection) => detection.kind);
}

describe('labelled values: the real report lines', () => {
  it.each([
    ['姓名:孟丁 性别:男 年龄:2岁 门诊号:90051065', ['孟丁', '90051065'], ['name', 'hospital_id']],
    ['送检医生:董薇 审核者:樊一笋 检验者:29028', ['董薇', '樊一笋', '29028'], ['name', 'name', 'name']],
    ['发票号码:01425472', ['01425472'], ['hospital_id']],
    ['sample No 20160824XXS0025', ['20160824XXS0025'], ['hospital_id']],
    ['样本号:20160824XXS0025', ['20160824XXS0025'], ['hospital_id']],
  ])('%s', (line, expected, expectedKinds) => {
    expect(values(line)).toEqual(expected);
    expect(kinds(line)).toEqual(expectedKinds);
  });
});

describe('labelled values: OCR-noisy separators and labels', () => {
  it.each([
    ['姓名：张三', '张三'],
    ['姓名;张三', '张三'],
    ['姓名.张三', '张三'],
    ['姓名 张三', '张三'],
    ['姓名张三性别男', '张三'],
    ['姓 名 : 李秀英 性别：女', '李秀英'],
    ['姓名 : 欧阳明华', '欧阳明华'],
    ['患者姓名：王建国，男，63岁', '王建国'],
    ['姓名：阿依古丽·买买提 性别：女', '阿依古丽·买买提'],
    ['姓名：Zhang San 年龄：40岁', 'Zhang San'],
    ['Name: John Smith Age: 61', 'John Smith'],
    ['Patient Name: Mary Ann Lee Sex: F', 'Mary Ann Lee'],
    ['Reported by: Dr. Li Wei', 'Li Wei'],
    ['审核：樊一笋2016-08-24', '樊一笋'],
    ['姓名∶张三', '张三'],
    ['姓名:孟丁科别:儿科', '孟丁'],
    ['医师签名:许立新记录日期: 2016-08-20', '许立新'],
    // The next cell's label, read glued to the name.
    ['送检医生：刘洋收到日期：2024-03-14', '刘洋'],
    ['姓 名 : 张 三 性 别 : 男', '张 三'],
    ['NAME: ZHANG SAN SEX: M', 'ZHANG SAN'],
    ['Signed by: Alice Wong MD', 'Alice Wong'],
    ['name: zhang san', 'zhang san'],
    ['Name: li Age: 61', 'li'],
    ['姓名：王\u{20BB7}明 性别：男', '王\u{20BB7}明'],
    ['姓名：欧阳\u{20BB7}明华', '欧阳\u{20BB7}明'],
    ['Patient: Jane Doe, 63 y/o female', 'Jane Doe'],
    // A form's letter-spaced label, read as two cells.
    ['姓  名孟丁  性别男', '孟丁'],
    // The label's first character lost on a photo: where a line or cell begins, with a name's exact shape.
    ['名孟丁  性别男  年龄2岁', '孟丁'],
    ['门诊  名孟丁', '孟丁'],
    // A long Latin label with one letter misread, marked by its colon.
    ['Patiet:Thomas Walsh Sex: Male', 'Thomas Walsh'],
    ['Physican: Robert Chen', 'Robert Chen'],
    // Glued to the word before it, as OCR reads a photo's label without its space.
    ['AttendingPhysician:Robert Chen', 'Robert Chen'],
    // Initials, and the surgeon of a pathology report.
    ['Surgeon: Dr. A. Patel', 'A. Patel'],
    ['Reported by: John R. Smith', 'John R. Smith'],
  ])('name in %s', (line, name) => {
    expect(values(line)).toEqual([name]);
    expect(kinds(line)).toEqual(['name']);
  });

  it.each([
    ['诊号90051065  科室儿科', '90051065', 'hospital_id'],
    ['门诊号1  065  科室', '1  065', 'hospital_id'],
    ['门  号  9005  1065  科室', '9005  1065', 'hospital_id'],
    ['号  9005  科室儿科', '9005', 'hospital_id'],
    ['门诊号:9005 1065 性别:男', '9005 1065', 'hospital_id'],
    ['ＩＤ号：９００５１０６５', '９００５１０６５', 'hospital_id'],
    ['住院号 Z00123', 'Z00123', 'hospital_id'],
    ['MRN: 00123456', '00123456', 'hospital_id'],
    ['Accession: SP24-03157  Ward: 7B', 'SP24-03157', 'hospital_id'],
    ['Bed No. 12 Dept: Oncology', '12', 'hospital_id'],
    ['身份证号:11010519491231002X', '11010519491231002X', 'resident_id'],
    ['身份证号码：1101051949123lOO2X', '1101051949123lOO2X', 'resident_id'],
    ['联系电话：138 1234 5678', '138 1234 5678', 'phone'],
    ['Tel: +86-138-1234-5678', '+86-138-1234-5678', 'phone'],
    ['Tel:(0512) 6778-0000', '(0512) 6778-0000', 'phone'],
    ['电话: 13812345678 56岁', '13812345678', 'phone'],
    ['医保卡号：3205001234567', '3205001234567', 'insurance_number'],
    ['Insurance No: SZ12345678', 'SZ12345678', 'insurance_number'],
    ['护照号码 E12345678', 'E12345678', 'passport'],
    ['Email: zhang.san@example.com', 'zhang.san@example.com', 'email'],
    ['出生日期:1968-03-12 性别:女', '1968-03-12', 'birth_date'],
    ['出生年月：1968年3月', '1968年3月', 'birth_date'],
    ['生日 1968/3/12', '1968/3/12', 'birth_date'],
    ['DOB: 12 Mar 1968', '12 Mar 1968', 'birth_date'],
    ['Date of Birth: March 12, 1968 Sex: M', 'March 12, 1968', 'birth_date'],
    ['出生日期 19680312', '19680312', 'birth_date'],
    ['出生于1968年3月12日，汉族', '1968年3月12日', 'birth_date'],
    ['出生日期：1968 性别：女', '1968', 'birth_date'],
    ['住院号 123456 56岁', '123456', 'hospital_id'],
    ['ID: 12345 Sex: F', '12345', 'hospital_id'],
    ['病理编号:S16-0824', 'S16-0824', 'hospital_id'],
    ['身份证号:3205 0619 8001 0112 34', '3205 0619 8001 0112 34', 'resident_id'],
    ['地址：江苏省苏州市工业园区星湖街328号 邮编215000', '江苏省苏州市工业园区星湖街328号', 'address'],
    ['现住址:苏州市姑苏区人民路100号3栋 备注:无', '苏州市姑苏区人民路100号3栋', 'address'],
    ['住址苏州市姑苏区人民路100号', '苏州市姑苏区人民路100号', 'address'],
  ])('%s → %s (%s)', (line, value, kind) => {
    expect(values(line)).toEqual([value]);
    expect(kinds(line)).toEqual([kind]);
  });
});

describe('labelled values in free text (labels that are also ordinary words)', () => {
  it.each([
    ['患者张三，男，63岁', '张三'],
    ['病人李秀英,', '李秀英'],
    ['患者欧阳明华性别女', '欧阳明华'],
    ['患者王建国因咳嗽2月入院', '王建国'],
    ['患者张三因咳嗽入院', '张三'],
    ['家属张明签字', '张明'],
    ['患者 张 三，男', '张 三'],
    ['患者家属郑丽代诉病史', '郑丽'],
    ['病人周慧敏，女', '周慧敏'],
    ['配偶周，手机', '周'],
    ['患者王 ，男', '王'],
  ])('%s → %s', (line, name) => {
    expect(values(line)).toEqual([name]);
  });

  it.each([
    ['患者信息'],
    ['患者术后恢复良好，'],
    ['患者于2016年8月行手术'],
    ['患者自述咳嗽两月，无发热'],
    ['患者病情稳定，家属知情同意。'],
    ['患者高血压病史10年'],
    ['患者3个月前无明显诱因出现咳嗽'],
    ['病人3天前'],
    ['患者于2016年'],
    ['患者自述'],
    ['患者无明显诱因'],
    ['患者因咳嗽'],
    ['患者男性'],
    ['患者家属'],
    ['患者高血压10年'],
    // A clipped label only where a line or cell begins, and only before a name's exact shape.
    ['药名阿莫西林'],
    ['名称：左乳肿物'],
    ['名单如下'],
    ['Patiently waiting'],
    ['Pattern: regular'],
    ['诊号码'],
    ['患者周身乏力'],
    ['患者焦虑明显'],
    ['患者陈旧性心梗'],
    ['患者夏季易发'],
    ['患者王建国华因咳嗽'],
    ['请核对地址后再寄送报告'],
    ['电话随访，病情稳定'],
    ['检验项目 结果 单位'],
    ['检验科'],
    ['检验方法：化学发光法'],
    ['出生缺陷筛查'],
    ['The patient was admitted on Monday.'],
    ['Patient: was seen in clinic today'],
    ['patient zhang san'],
  ])('%s → nothing', (line) => {
    expect(values(line)).toEqual([]);
  });
});

describe('labelled values: clinical lines stay visible', () => {
  it.each([
    ...CLINICAL_LINES.map((line) => [line]),
    ['科室:肿瘤科 病区:三病区'],
    ['患者：男，56岁'],
    ['患者：女性，48岁'],
    ['姓名：不详'],
    ['审核:2016-08-24 10:30'],
    ['生日：不详'],
    // PT is prothrombin time on a lab report: after Pt only a name's shape counts.
    ['PT: 12.5 s'],
    ['PT:'],
    ['PT  APTT  INR'],
    ['Pt: stable'],
  ])('%s', (line) => {
    expect(detectLabelledValues(line)).toEqual({ detections: [], openLabels: [] });
  });
});

describe('open labels (value on the line below)', () => {
  it.each([
    ['姓名：', [[0, 2, 'name']]],
    ['姓名: 性别:男', [[0, 2, 'name']]],
    ['门诊号 住院号', [[0, 3, 'hospital_id'], [4, 7, 'hospital_id']]],
    ['Address:', [[0, 7, 'address']]],
  ])('%s', (line, expected) => {
    const found = detectLabelledValues(line);
    expect(found.detections).toEqual([]);
    expect(found.openLabels.map(({ start, end, kind }) => [start, end, kind])).toEqual(expected);
  });

  it.each([['该患者'], ['Patient ID: MRN00123456'], ['性别：']])('%s has no open label', (line) => {
    expect(detectLabelledValues(line).openLabels).toEqual([]);
  });
});

describe('identifier values after redaction', () => {
  it('takes no letters-only token as an identifier value (OCR reading the next label)', () => {
    expect(findPersonalData('门诊号 IERE: :肿瘤科').detections).toEqual([]);
  });

  it('redacts what follows a colon-labelled field as an unread value, fail-closed', () => {
    const line = '门诊号: IERE: 科室:肿瘤科';
    const [unread] = findPersonalData(line).detections;
    expect(unread).toMatchObject({ kind: 'hospital_id', rule: UNREAD_VALUE_RULE });
    expect(line.slice(unread!.start, unread!.end)).toBe('IERE:');
    expect(findPersonalData('姓名: 性别:男').detections).toEqual([]);
  });
});

describe('a name guessed at in a run of text after its label', () => {
  it('is a datum, its first four characters, and its label stays open for the value below it', () => {
    const line = '姓名  苏州市立第二医院病理诊断报告单';
    const found = findPersonalData(line);
    expect(found.detections.map((detection) => [line.slice(detection.start, detection.end), detection.kind, detection.rule])).toEqual([['苏州市立', 'name', GUESSED_VALUE_RULE]]);
    expect(found.openLabels.map((label) => line.slice(label.start, label.end))).toEqual(['姓名']);
  });

  it('is no guess where a name can be told apart, or a label ends it', () => {
    for (const line of ['姓名  王建国因咳嗽入院', '姓名 孟丁  性别 男', '姓名：阿依古丽·买买提']) {
      expect(findPersonalData(line).detections.map((detection) => detection.rule)).toEqual(['labelled-value']);
      expect(findPersonalData(line).openLabels).toEqual([]);
    }
  });
});

describe('table headers joined by OCR', () => {
  it('leaves every personal header cell open, its value being below', () => {
    const line = '姓名性别年龄住院号床号';
    expect(findPersonalData(line).detections).toEqual([]);
    expect(findPersonalData(line).openLabels.map((label) => line.slice(label.start, label.end))).toEqual(['姓名', '住院号', '床号']);
  });
});

describe('labels read with their value on their line', () => {
  // No column's header: the self-audit takes nothing below them for their value.
  it.each([
    ['姓名：张三  性别：男', ['姓名']],
    ['MRN: BHM00482913   DOB: 1952-04-19', ['MRN', 'DOB']],
    ['姓名  52岁', []],
    ['检验者:29028', []],
    ['姓名  性别  年龄', []],
    ['门诊号: IZOAOE', []],
  ])('%s: %j', (line, labels) => {
    expect(labelsWithValues(line).map((label) => line.slice(label.start, label.end))).toEqual(labels);
  });
});

describe('a cell that begins with a label', () => {
  // Another field, not the value of the label above it (see the self-audit).
  it.each(['性别：男', ' 年龄 56岁', '电话:13800138000', 'Age: 61', 'Sex F'])('%s begins with a label', (text) => {
    expect(startsWithLabel(text)).toBe(true);
  });
  it.each(['张三', 'Mary Ellis', '52岁', '右肺上叶腺癌', 'C-1208'])('%s does not', (text) => {
    expect(startsWithLabel(text)).toBe(false);
  });
});

describe('insurance card labels', () => {
  it.each([
    ['Insurance Card No.: INS-4408-2291-7730', 'INS-4408-2291-7730'],
    ['医保卡：SZ3205001234567', 'SZ3205001234567'],
  ])('%s', (line, value) => {
    const [detection] = findPersonalData(line).detections;
    expect(detection?.kind).toBe('insurance_number');
    expect(line.slice(detection!.start, detection!.end)).toBe(value);
  });
});

describe('one-character names', () => {
  // A fragment of a name is still part of it (the audit tells the rest of a nicked label apart by where the page's labels were).
  it.each([['姓名: E 别:女', 'E'], ['姓名:上:女年龄: 48 岁', '上'], ['姓名：张', '张'], ['送检医生: 1 床号:', '1']])('%s: %s is redacted as a name read', (line, fragment) => {
    const detections = findPersonalData(line).detections.filter((detection) => detection.kind === 'name');
    expect(slices(line, detections)).toEqual([fragment]);
    expect(detections[0]!.rule).toBe('labelled-value');
  });
});
