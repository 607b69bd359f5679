import { describe, expect, it } from 'vitest';
import { DOCUMENT_CATEGORIES, type DocumentCategory } from '../../../src/contract/case-files.js';
import { classifyByRules, normalizeForRules } from '../../../src/operations/case-file-process/classify.js';
import {
  CLASSIFY_MAX_TOKENS,
  CLASSIFY_PROMPT_TEXT_CHARS,
  RULES_CONFIDENT,
  classifyAnswer,
  classifyMessages,
  mergeClassification,
} from '../../../src/operations/case-file-process/classify-llm.js';

/** Spaces between Chinese characters and full-width Latin letters, as noisy OCR gives them. */
function ocrNoise(text: string): string {
  return text
    .replace(/(\p{Script=Han})(?=\p{Script=Han})/gu, '$1 ')
    .replace(/[A-Za-z0-9:]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0));
}

const TITLE_LINE = /报告|记录|病历|小结|医嘱单|处方笺|REPORT|NOTE|SUMMARY|LIST/u;

/** The text without its title line (a line with no field label that names the document). */
function withoutTitle(text: string): string {
  return text
    .split('\n')
    .filter((line) => /[:：]/u.test(line) || !TITLE_LINE.test(line.replace(/\s/gu, '')))
    .join('\n');
}

const PATHOLOGY_ZH = `某某市第一人民医院
病理诊断报告
病理号：P2024-01234  姓名：张三  性别：男  年龄：63岁
送检标本：右肺上叶切除标本
大体所见：灰白色肺组织一块，大小8×6×3cm，切面见一灰白肿物。
镜下所见：肿瘤细胞呈腺泡状排列，核异型明显。
免疫组化：TTF-1(+)，NapsinA(+)，CK7(+)，Ki-67(约30%+)，P40(-)。
病理诊断：（右肺上叶）浸润性腺癌，腺泡为主型。
报告医师：李医生`;

const PATHOLOGY_ZH_IHC = `病理报告
住院号 123456  科室 胸外科
标本名称：左乳肿物穿刺
免疫组化结果：ER(90%强+)，PR(60%中等+)，HER2(2+)，Ki-67(25%)，AR(80%+)
分子病理：HER2 FISH 检测 待回报
病理诊断：浸润性导管癌，II级。`;

const PATHOLOGY_EN = `SURGICAL PATHOLOGY REPORT
Specimen: Right upper lobe, lobectomy
Gross Description: A 6.0 x 4.5 cm lobe of lung with a firm tan mass.
Microscopic Description: Acinar pattern adenocarcinoma, no pleural invasion.
Immunohistochemistry: TTF-1 positive, Napsin A positive, Ki-67 30%.
Final Diagnosis: Invasive adenocarcinoma, acinar predominant.`;

const IMAGING_ZH_CT = `XX医院放射科
CT检查报告
检查部位：胸部  检查方法：平扫+增强扫描
影像所见：右肺上叶见一不规则软组织密度影，大小约3.2cm×2.8cm，边缘分叶，可见毛刺，增强扫描不均匀强化。纵隔内见肿大淋巴结。
影像学诊断：右肺上叶占位，考虑周围型肺癌，纵隔淋巴结转移可能。
报告医师：王医生  审核医师：赵医生`;

const IMAGING_ZH_US = `超声检查报告
检查项目：腹部彩超
超声所见：肝脏形态大小正常，肝右叶见一低回声结节，大小约1.5×1.2cm，边界清。胆囊壁光滑。
超声提示：肝右叶低回声结节，建议进一步检查。`;

const IMAGING_EN = `RADIOLOGY REPORT
Exam: CT chest with contrast
Technique: Axial images were obtained after intravenous contrast.
Findings: A 3.2 cm spiculated mass in the right upper lobe. Enlarged mediastinal lymph nodes.
Impression: Right upper lobe mass suspicious for primary lung malignancy.`;

const LAB_ZH_CBC = `某某医院检验报告单
标本类型：全血  采样时间：2024-03-15 08:00  检验项目：血常规
项目 结果 单位 参考范围
白细胞计数 5.62 10^9/L 3.5-9.5
红细胞计数 4.21 10^12/L 4.3-5.8 ↓
血红蛋白 128 g/L 130-175 ↓
血小板计数 210 10^9/L 125-350
中性粒细胞百分比 65.2 % 40-75
检验者：钱某  审核者：孙某`;

const LAB_ZH_CHEM = `化验报告单
生化全项
项目名称 结果 参考值
谷丙转氨酶 32 U/L 9-50
谷草转氨酶 28 U/L 15-40
总胆红素 12.5 μmol/L 0-21
肌酐 76 μmol/L 57-111
葡萄糖 5.3 mmol/L 3.9-6.1
钾 4.1 mmol/L 3.5-5.3`;

const LAB_EN = `LABORATORY REPORT
Test Result Units Reference Range
WBC 5.6 10^9/L 3.5-9.5
Hemoglobin 128 g/L 130-175
Creatinine 76 umol/L 57-111
Glucose 5.3 mmol/L 3.9-6.1`;

const ADMISSION_ZH = `某某市人民医院
入院记录
姓名：张三  性别：男  年龄：63岁  入院日期：2024-03-10
病史陈述者：患者本人
主诉：咳嗽、咳痰2月，痰中带血1周。
现病史：患者2月前无明显诱因出现咳嗽，1周前出现痰中带血。胸部CT示：右肺上叶占位，大小约3.2cm，纵隔淋巴结肿大。
既往史：高血压病史10年。
个人史：吸烟40年，20支/日。
家族史：否认家族遗传病史。
体格检查：T 36.5℃，P 80次/分，BP 130/80mmHg。
辅助检查：血常规 白细胞 5.6×10^9/L，血红蛋白 128 g/L。胸部增强CT：右肺上叶占位。
初步诊断：右肺上叶占位，肺癌可能。`;

const ADMISSION_ZH_SHORT = `住院病历
主诉：发现左乳肿物1月。
现病史：患者1月前自检发现左乳外上象限肿物，约2cm，无疼痛。乳腺超声示：左乳低回声结节，BI-RADS 4c。
既往史：体健。 月经史：14岁初潮。 婚育史：已婚已育。
专科检查：左乳外上可触及一约2cm肿物，质硬。`;

const ADMISSION_EN = `ADMISSION NOTE
Chief Complaint: Cough and hemoptysis for two months.
History of Present Illness: The patient reports a two month history of cough. CT chest showed a 3.2 cm right upper lobe mass. Impression on the outside CT: suspicious for malignancy.
Past Medical History: Hypertension.
Family History: Non-contributory.
Physical Examination: Afebrile, lungs with decreased breath sounds on the right.`;

const DISCHARGE_ZH = `某某医院
出院记录
入院日期：2024-03-10  出院日期：2024-03-25  住院天数：15天
入院情况：患者因咳嗽、咳痰2月入院，胸部CT示右肺上叶占位。
入院诊断：右肺上叶占位
诊疗经过：入院后完善检查，血常规：白细胞 5.6×10^9/L，血红蛋白 128 g/L，肝肾功能：谷丙转氨酶 32 U/L，肌酐 76 μmol/L。于2024-03-14行胸腔镜右肺上叶切除术，术后病理：浸润性腺癌。
出院诊断：右肺上叶腺癌 pT2aN0M0 IB期
出院情况：一般情况可，切口愈合良好。
出院医嘱：1. 注意休息；2. 阿司匹林 100mg qd 口服；3. 术后1月复查胸部CT。`;

const DISCHARGE_ZH_SUMMARY = `出 院 小 结
住院经过：患者入院后行新辅助化疗2周期，复查CT提示肿瘤缩小，后行手术治疗，恢复顺利。
出院诊断：乳腺癌 cT2N1M0
出院带药：来曲唑片 2.5mg 每日一次 口服`;

const DISCHARGE_EN = `DISCHARGE SUMMARY
Admission Date: 03/10/2024  Discharge Date: 03/25/2024
Discharge Diagnosis: Right upper lobe adenocarcinoma, pT2aN0M0.
Hospital Course: The patient underwent VATS right upper lobectomy. Chief complaint on admission was cough. Labs: WBC 5.6 10^9/L, Hb 128 g/L.
Discharge Medications: Aspirin 100 mg daily.
Condition at Discharge: Stable.`;

const SURGERY_ZH = `手术记录
手术日期：2024-03-14  手术名称：胸腔镜右肺上叶切除术+纵隔淋巴结清扫术
术前诊断：右肺上叶占位  术后诊断：右肺上叶肺癌
术者：李某  助手：王某  麻醉方式：全身麻醉（双腔气管插管）
术中所见：右肺上叶见一约3cm肿物，质硬，未侵及胸膜。
手术经过：患者取左侧卧位，常规消毒铺巾……术中出血约50ml。`;

const SURGERY_ZH_NOISY = `某某医院 手 术 记 录
手 术 名 称：腹腔镜根治性远端胃大部切除术
麻 醉 方 式：全麻
主 刀：某某  手 术 经 过：探查见胃窦部肿物约4cm……`;

const SURGERY_EN = `OPERATIVE REPORT
Preoperative Diagnosis: Right upper lobe mass.
Postoperative Diagnosis: Right upper lobe lung cancer.
Procedure: VATS right upper lobectomy with mediastinal lymph node dissection.
Surgeon: Dr. Li. Anesthesia: General.
Operative Findings: 3 cm firm mass in the right upper lobe.
Estimated Blood Loss: 50 mL.`;

const MEDICATION_ZH_ORDERS = `长期医嘱单
开始时间 医嘱内容 停止时间
2024-03-10 二级护理
2024-03-10 阿司匹林肠溶片 100mg qd 口服
2024-03-10 氨氯地平片 5mg qd 口服
2024-03-11 0.9%氯化钠注射液 100ml + 头孢唑林 2g bid 静滴`;

const MEDICATION_ZH_RX = `某某医院处方笺
药品名称 规格 用法用量
吉非替尼片 250mg×10片 250mg 每日一次 口服
奥美拉唑肠溶胶囊 20mg×14粒 20mg bid 口服`;

const MEDICATION_EN = `MEDICATION LIST
Drug  Dosage  Route  Frequency
Aspirin 100 mg po qd
Amlodipine 5 mg po qd
Gefitinib 250 mg po daily`;

const EXAMPLES: Record<Exclude<DocumentCategory, 'other'>, string[]> = {
  pathology_report: [PATHOLOGY_ZH, PATHOLOGY_ZH_IHC, PATHOLOGY_EN],
  imaging_report: [IMAGING_ZH_CT, IMAGING_ZH_US, IMAGING_EN],
  lab_report: [LAB_ZH_CBC, LAB_ZH_CHEM, LAB_EN],
  admission_record: [ADMISSION_ZH, ADMISSION_ZH_SHORT, ADMISSION_EN],
  discharge_summary: [DISCHARGE_ZH, DISCHARGE_ZH_SUMMARY, DISCHARGE_EN],
  surgery_record: [SURGERY_ZH, SURGERY_ZH_NOISY, SURGERY_EN],
  medication_record: [MEDICATION_ZH_ORDERS, MEDICATION_ZH_RX, MEDICATION_EN],
};
const CASES = Object.entries(EXAMPLES).flatMap(([category, texts]) =>
  texts.map((text, index) => [category, `${category} #${index + 1}`, text] as const),
);

describe('classifyByRules: each category', () => {
  it.each(CASES)('%s (%s)', (category, _name, text) => {
    const result = classifyByRules(text);
    expect(result.category).toBe(category);
    expect(result.confidence).toBeGreaterThanOrEqual(RULES_CONFIDENT);
    expect(result.evidence.length).toBeGreaterThan(0);
  });

  it.each(CASES)('%s with OCR noise: spaces between Chinese characters, full-width forms (%s)', (category, _name, text) => {
    expect(classifyByRules(ocrNoise(text)).category).toBe(category);
  });

  it.each(CASES)('%s without its title line, from its sections alone (%s)', (category, _name, text) => {
    const body = withoutTitle(text);
    expect(body).not.toBe(text);
    expect(classifyByRules(body).category).toBe(category);
  });
});

describe('classifyByRules: documents that quote other kinds', () => {
  it('a discharge summary with 入院日期, 入院诊断 and lab values stays a discharge summary', () => {
    expect(DISCHARGE_ZH).toContain('入院日期');
    expect(DISCHARGE_ZH).toContain('10^9/L');
    const result = classifyByRules(DISCHARGE_ZH);
    expect(result.category).toBe('discharge_summary');
    expect(result.evidence).toContain('出院记录');
  });

  it('an admission record with CT findings and lab values stays an admission record', () => {
    const result = classifyByRules(ADMISSION_ZH);
    expect(result.category).toBe('admission_record');
    expect(result.evidence).toEqual(expect.arrayContaining(['入院记录', '主诉', '现病史']));
  });

  it('a pathology report with 免疫组化 percentages is not a lab report', () => {
    expect(classifyByRules(PATHOLOGY_ZH_IHC).category).toBe('pathology_report');
  });

  it('a title under the hospital and department lines is still a title', () => {
    expect(classifyByRules('某某市第一人民医院\n病理科\n病理报告\n病理诊断：腺癌').category).toBe('pathology_report');
    expect(classifyByRules('某某市第一人民医院\n病理诊断：腺癌').category).toBe('other');
  });

  it('a title after a long English hospital name on the same line is still a title', () => {
    const result = classifyByRules('The First Affiliated Hospital of Suzhou Medical College Laboratory Report\nName: X');
    expect(result).toEqual({ category: 'lab_report', confidence: 1, evidence: ['laboratory report', 'laboratory'] });
  });

  it('a title phrase quoted in the body counts less than the title itself', () => {
    const quoted = `入院记录\n现病史：外院病理报告示腺癌，免疫组化：TTF-1(+)。`;
    expect(classifyByRules(quoted).category).toBe('admission_record');
  });

  it('a discharge summary that repeats the admission complaint and history stays a discharge summary', () => {
    const text = `出院小结\n主诉：咳嗽2月。\n现病史：胸部CT示右肺上叶占位。\n入院日期：2024-03-10\n出院诊断：肺腺癌\n出院医嘱：定期复查。`;
    expect(classifyByRules(text).category).toBe('discharge_summary');
  });

  it('many lab values quoted in an admission record do not make it a lab report', () => {
    const values = ['白细胞 5.6×10^9/L', '血红蛋白 128g/L', '血小板 210×10^9/L', '白蛋白 40g/L', '谷丙转氨酶 32U/L', '谷草转氨酶 28U/L',
      '肌酐 76μmol/L', '尿素 5.1mmol/L', '葡萄糖 5.3mmol/L', '钾 4.1mmol/L', '钠 140mmol/L', 'CEA 12.5ng/mL'];
    // The title line lost to OCR: the sections alone must outweigh a dozen lab units.
    const text = `主诉：咳嗽2月。\n现病史：咳嗽伴痰中带血。\n既往史：体健。\n体格检查：双肺呼吸音清。\n辅助检查：血常规、肝功能、肾功能：${values.join('，')}。`;
    expect(classifyByRules(text).category).toBe('admission_record');
  });

  it('a lab sheet whose labels OCR lost is read from its reference ranges and units', () => {
    const rows = ['1 WBC 5.62 3.50~9.50', '2 RBC 4.21 4,30~5.80', '3 HGB 128 130--175', '4 PLT 210 10°9/L 125~350',
      '5 NEUT% 65.2 40.0~75.0', '6 LYM% 25.1 20.0-50.0', '7 MONO% 6.2 3.00~10.00'];
    const result = classifyByRules(rows.join('\n'));
    expect(result.category).toBe('lab_report');
    expect(result.evidence).toEqual(expect.arrayContaining(['10^9/L, g/L, mmol/L…', '3.5~9.5 ranges ×6']));
  });

  it('dates, times and blood pressure are not reference ranges', () => {
    expect(classifyByRules('2024-03-10 至 2024-03-25\n08:00-12:00\nBP 130/80mmHg\n第1-2周期').evidence).toEqual([]);
  });

  it('the title decides between two documents with the same sections', () => {
    const sections = '\n诊疗经过：化疗2周期。\n主诉：咳嗽。\n现病史：咳嗽2月。\n出院诊断：肺癌。';
    expect(classifyByRules(`出院小结${sections}`).category).toBe('discharge_summary');
    expect(classifyByRules(`入院记录${sections}`).category).toBe('admission_record');
  });
});

describe('classifyByRules: nothing convincing is other', () => {
  it.each([
    ['empty', ''],
    ['blank', '  \n \n'],
    ['a letter', '尊敬的专家：您好！现将患者资料寄上，请审阅。此致 敬礼'],
    ['an invoice', '门诊收费票据\n金额合计：326.50元\n收款单位：某某医院'],
    ['English prose', 'The results of the meeting will be shared with the team next week.'],
    ['one weak cue', '复查胸部CT'],
    ['random characters', 'asdf qwer 1234 ！@#￥%……&*'],
  ])('%s → other', (_name, text) => {
    expect(classifyByRules(text).category).toBe('other');
  });

  it('other with no cue at all is fully confident; a near miss less so', () => {
    expect(classifyByRules('').confidence).toBe(1);
    const nearMiss = classifyByRules('主诉：咳嗽');
    expect(nearMiss.category).toBe('other');
    expect(nearMiss.confidence).toBeLessThan(1);
    expect(nearMiss.evidence).toEqual(['主诉']);
  });

  it('does not read English cues inside longer words', () => {
    const words = 'the fact is the doctor drove, mrs smith read the prescriptions, a procedures manual and a postmortem';
    expect(classifyByRules(words)).toEqual({ category: 'other', confidence: 1, evidence: [] });
    expect(classifyByRules('fact ct').evidence).toEqual(['ct/mri/超声…']);
  });

  it('reads MR and DR as modalities beside Chinese only, never "Mr." or "Dr."', () => {
    expect(classifyByRules('Mr. Wang was seen by Dr. Li and Dr Chen').evidence).toEqual([]);
    expect(classifyByRules('头颅MR检查，胸部DR').evidence).toEqual(['ct/mri/超声… ×2']);
  });

  it('does not read the blood gas pO2 as the frequency "po"', () => {
    expect(classifyByRules('pO2 95 mmHg').evidence).toEqual([]);
    expect(classifyByRules('aspirin 100 mg po').evidence).toEqual(['mg/片/ml…', 'qd/bid/tid/每日…']);
  });

  it('normalises width and case and drops spaces except between English words', () => {
    expect(normalizeForRules('胸 部 ＣＴ 平 扫\n Chief   Complaint：咳嗽\n\n')).toBe('胸部ct平扫\nchief complaint:咳嗽');
  });

  it('reads only the first MAX_RULE_TEXT_CHARS characters', () => {
    expect(classifyByRules('无关内容。'.repeat(1000) + '\n病理诊断报告\n免疫组化：CK7(+)').category).toBe('other');
  });
});

describe('classifyByRules: confidence', () => {
  it('is low when two categories score alike', () => {
    const mixed = '主诉：咳嗽。\n现病史：咳嗽2月。\n出院诊断：肺癌。\n诊疗经过：化疗。';
    const result = classifyByRules(mixed);
    expect(result.confidence).toBeLessThan(RULES_CONFIDENT);
  });

  it('is deterministic', () => {
    expect(classifyByRules(DISCHARGE_ZH)).toEqual(classifyByRules(DISCHARGE_ZH));
  });
});

describe('LLM refinement', () => {
  it('classifyAnswer accepts exactly the eight categories', () => {
    for (const category of DOCUMENT_CATEGORIES) expect(classifyAnswer.parse({ category })).toEqual({ category });
    for (const bad of [{ category: 'radiology' }, { category: 'Pathology_Report' }, { category: '' }, {}, { category: null }]) {
      expect(classifyAnswer.safeParse(bad).success).toBe(false);
    }
  });

  it('the prompt carries the rules answer and only the start of the text', () => {
    const rules = classifyByRules(PATHOLOGY_ZH);
    const text = PATHOLOGY_ZH + '\n' + '尾'.repeat(CLASSIFY_PROMPT_TEXT_CHARS);
    const messages = classifyMessages(text, rules);
    expect(messages.map((message) => message.role)).toEqual(['system', 'user']);
    for (const category of DOCUMENT_CATEGORIES) expect(messages[0]!.content).toContain(category);
    expect(messages[1]!.content).toContain('"category":"pathology_report"');
    expect(messages[1]!.content).toContain('病理诊断报告');
    expect(messages[1]!.content.split('尾').length - 1).toBeLessThan(CLASSIFY_PROMPT_TEXT_CHARS);
    expect(CLASSIFY_MAX_TOKENS).toBeGreaterThanOrEqual(16);
  });

  it('confident rules beat the model', () => {
    const rules = classifyByRules(SURGERY_ZH);
    expect(rules.confidence).toBeGreaterThanOrEqual(RULES_CONFIDENT);
    expect(mergeClassification(rules, { category: 'lab_report' })).toBe('surgery_record');
    expect(mergeClassification(rules, { category: 'other' })).toBe('surgery_record');
  });

  it('unsure rules take the model answer', () => {
    const rules = { category: 'admission_record' as const, confidence: RULES_CONFIDENT - 0.01, evidence: ['主诉'] };
    expect(mergeClassification(rules, { category: 'discharge_summary' })).toBe('discharge_summary');
  });

  it('rules that found nothing take the model answer, whatever their confidence', () => {
    expect(mergeClassification(classifyByRules(''), { category: 'imaging_report' })).toBe('imaging_report');
  });

  it('the threshold itself counts as confident', () => {
    const rules = { category: 'lab_report' as const, confidence: RULES_CONFIDENT, evidence: ['参考范围'] };
    expect(mergeClassification(rules, { category: 'other' })).toBe('lab_report');
  });
});
