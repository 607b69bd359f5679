/**
 * The label vocabulary of the detectors, in one place: personal labels by kind, clinical/field
 * labels (which end a value), and words that begin like a label but are not one.
 */
import type { PersonalKind } from './types.js';

/**
 * Relatives, named as a patient's contact ("紧急联系人：郑丽（女儿）", "配偶周慧敏"). The same words
 * fill family and marital histories ("父亲：高血压", "配偶体健"), so after them only a plausible
 * name counts, colon or not, and they never wait for a value below.
 */
export const RELATION_LABELS: ReadonlySet<string> = new Set(['父亲', '母亲', '丈夫', '妻子', '儿子', '女儿', '配偶']);

/**
 * Labels after which only a value of the exact shape of a name counts, colon or not, and which
 * never wait for a value below: relatives, and Pt, clinical shorthand for the patient in notes
 * ("Pt: afebrile").
 */
export const NAME_SHAPE_ONLY_LABELS: ReadonlySet<string> = new Set([...RELATION_LABELS, 'Pt']);

/** Labels only in the case written here: Pt is the patient, PT prothrombin time ("PT: 12.5 s", a coagulation table's column). */
export const CASE_SENSITIVE_LABELS: ReadonlySet<string> = new Set(['Pt', 'Pt Name', 'Pt. Name']);

export const PERSONAL_LABELS: Readonly<Record<PersonalKind, readonly string[]>> = {
  name: [
    '姓名', '患者姓名', '病人姓名', '患者', '病人', '送检医生', '送检医师', '申请医生', '申请医师', '报告医生', '报告医师',
    '审核者', '审核医生', '审核医师', '审核人', '审核', '检验者', '检验医师', '检验人', '检验', '医师', '主治医师', '医生',
    '诊断医师', '复核医师', '取材医师', '病理医师', '主刀医师', '麻醉医师', '报告者', '复核者', '诊断者',
    '签名', '医生签名', '家属', '家属签名', '联系人', '记录者', '操作者',
    '紧急联系人', '紧急联系人姓名', '联系人姓名', '家属姓名', '监护人', '监护人姓名', '配偶姓名', ...RELATION_LABELS,
    'Name', 'Patient', 'Patient Name', 'Pt', 'Pt Name', 'Pt. Name', 'Physician', 'Doctor', 'Surgeon', 'Signed by', 'Reported by', 'Reviewed by', 'Examined by',
    'Emergency Contact', 'Next of Kin', 'Contact Person', 'Contact Name', 'Guardian', 'Spouse',
  ],
  hospital_id: [
    '门诊号', '住院号', '病案号', '病历号', '床号', '检查号', '标本号', '样本号', '条码号', '条形码', '发票号码', '发票号',
    '登记号', '影像号', '病理号', 'ID号', '就诊卡号', '卡号', '门诊号码', '住院号码', '流水号', '申请单号', '检验单号',
    '标本编号', '样本编号', '病理编号', '患者编号', '病人编号', '住院编号', '门诊编号',
    'ID', 'MRN', 'Patient ID', 'Hospital No', 'Sample No', 'Specimen No', 'Accession', 'Accession No', 'Accession Number', 'Bed No', 'Invoice No',
  ],
  birth_date: ['出生日期', '出生年月', '出生年月日', '生日', '出生', '出生于', 'DOB', 'Date of Birth', 'Birth Date'],
  address: ['地址', '住址', '家庭住址', '现住址', '户籍地址', '联系地址', '单位地址', '家庭地址', 'Address'],
  phone: [
    '电话', '手机', '联系电话', '手机号', '手机号码', '电话号码', '家庭电话', '单位电话', '座机', '联系方式', '联系人电话',
    '紧急联系电话', '紧急联系人电话', '家属电话', '家属联系电话', '监护人电话',
    'Tel', 'Phone', 'Mobile', 'Telephone', 'Contact Number', 'Contact No', 'Contact Phone', 'Emergency Phone',
  ],
  resident_id: ['身份证号', '身份证', '身份证号码', '证件号', '证件号码', 'ID No', 'ID Card'],
  insurance_number: ['医保号', '医保卡号', '社保卡号', '医疗保险号', '社保号', '医保编号', '医保卡', '社保卡', '医疗保险卡号', 'Insurance No', 'Insurance Number', 'Insurance Card No', 'Insurance Card', 'Insurance ID', 'Policy No', 'Member ID'],
  passport: ['护照号', '护照号码', '护照', 'Passport No', 'Passport'],
  email: ['邮箱', '电子邮箱', 'Email', 'E-mail'],
  identifier: [],
};

/** Clinical and form fields: never redacted, but they end the value of the label before them. */
export const FIELD_LABELS: readonly string[] = [
  '性别', '年龄', '科室', '病区', '临床诊断', '诊断', '标本类型', '标本种类', '送检日期', '采样时间', '采样日期', '接收时间',
  '报告日期', '报告时间', '检验日期', '审核日期', '审核时间', '备注', '民族', '职业', '婚姻', '籍贯', '费别', '样本类型',
  '检验项目', '项目', '结果', '单位', '参考值', '参考范围', '临床表现', '送检科室', '申请科室', '就诊科室', '住院科室', '邮编',
  '科别', '床位', '临床科室', '病人类型', '就诊类型', '类别', '入院日期', '出院日期', '检查日期', '检查时间', '申请日期',
  '申请时间', '检验时间', '标本状态', '标本性状', '仪器', '医院', '关系', '与患者关系', '记录日期', '记录时间', '签字日期', '收到日期',
  '病理诊断', '入院诊断', '出院诊断', '分期', '临床分期', '病理分期', 'TNM分期',
  'Sex', 'Age', 'Gender', 'Dept', 'Department', 'Ward', 'Date', 'Diagnosis', 'Specimen', 'Result', 'Unit', 'Reference',
  'Time', 'Hospital', 'Relationship', 'Relation', 'Stage',
];

/** Words that begin with a personal label but name something else ("检验科" is a department). */
export const NOT_LABELS: readonly string[] = [
  '患者信息', '患者资料', '病人信息', '患者基本信息', '检验科', '检验结果', '检验方法', '检验报告', '检验单', '检验报告单',
  '审核通过', '出生缺陷', '出生地', '出生体重', '医师执业', '医师资格', '签名日期', '卡号类型',
];

/**
 * Labels as OCR reads them with characters lost (a photo's faint or clipped print: "名孟丁" for
 * 姓名 孟丁, "诊号", "门  号", "号" or "诊" for 门诊号). They count only where a line or a cell
 * begins, and, being ordinary characters too, with a value of the exact shape of their kind (an
 * identifier holds a digit): "号  9005  1065" is an outpatient number, "名单" no name.
 */
export const CLIPPED_LABELS: Readonly<Partial<Record<PersonalKind, readonly string[]>>> = {
  name: ['名'],
  hospital_id: ['诊号', '院号', '案号', '历号', '门号', '诊', '号'],
};

/** Labels that are also ordinary words: without a colon their value must have the exact shape of its kind. */
export const AMBIGUOUS_LABELS: ReadonlySet<string> = new Set([
  '患者', '病人', '检验', '审核', '出生', '医师', '医生', '签名', '家属', '监护人', '护照', 'patient', 'doctor', 'physician',
  'name', 'address', 'id', 'guardian', 'spouse', ...Object.values(CLIPPED_LABELS).flat(),
]);
