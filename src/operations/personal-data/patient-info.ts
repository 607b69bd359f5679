/**
 * Patient information by deterministic rules over OCR text. Each field is read after its label
 * (姓名/患者/Name, 年龄/Age or "56岁", 诊断/Diagnosis, 分期/Stage or TNM); a field that no
 * rule finds is null, never guessed. Age is digits only, in years ("56岁" → "56"); ages given
 * in months or days are null. Stage is "IIIA" style (Roman, upper case, no 期) or TNM as
 * written without spaces ("pT2N1M0").
 */

export interface PatientInfo {
  name: string | null;
  age: string | null;
  cancer_type: string | null;
  stage: string | null;
}

const SEP = '[\\s:：]*';
/** Words that follow a label on forms and are never a name. */
const NOT_NAMES = new Set(['性别', '年龄', '男', '女', '科室', '病区', '床号', '住院号', '门诊号', '病历号', '姓名', '患者', '未知', '不详']);
/** Labels that may directly follow a name on the same line ("张三性别男"). */
const NEXT_LABEL = /(性别|年龄|科室|病区|床号|床位|住院号|门诊号|病历号|病案号|ID|送检|标本|年|性)/u;

function firstMatch(text: string, patterns: readonly RegExp[]): RegExpExecArray | null {
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match) return match;
  }
  return null;
}

const NAME_PATTERNS = [
  new RegExp(`(?:患者)?姓\\s*名${SEP}([\\p{Script=Han}·]{2,12})`, 'u'),
  new RegExp(`患\\s*者${SEP.replace('*', '+')}([\\p{Script=Han}·]{2,12})`, 'u'),
  /\b(?:Patient\s+)?Name\s*[:：]\s*([A-Z][a-z]+(?:[ -](?!(?:Age|Sex|Gender|DOB|ID|Dept)\b)[A-Z][a-z]+){0,3})/u,
];

export function extractName(text: string): string | null {
  const match = firstMatch(text, NAME_PATTERNS);
  if (!match) return null;
  let name = match[1]!;
  const label = NEXT_LABEL.exec(name);
  if (label && label.index > 0) name = name.slice(0, label.index);
  if (/\p{Script=Han}/u.test(name) && (name.length < 2 || name.length > 4) && !name.includes('·')) return null;
  return NOT_NAMES.has(name) ? null : name;
}

const MAX_AGE = 120;
const AGE_PATTERNS = [
  new RegExp(`年\\s*龄${SEP}(\\d{1,3})(?!\\d)\\s*(岁|歲|周岁|个月|月|天|日|Y|y)?`, 'u'),
  /\bAge\s*[:：]?\s*(\d{1,3})(?!\d)\s*(years?|yrs?|y|months?|m)?/iu,
  /(?<![\d.])(\d{1,3})\s*(岁|歲|周岁)/u,
];

export function extractAge(text: string): string | null {
  const match = firstMatch(text, AGE_PATTERNS);
  if (!match) return null;
  const unit = (match[2] ?? '').toLowerCase();
  if (/^(个月|月|天|日|months?|m)$/u.test(unit)) return null;
  const years = Number(match[1]);
  return years > 0 && years <= MAX_AGE ? String(years) : null;
}

/** Cancer types, the most specific first so "非小细胞肺癌" wins over "肺癌". */
export const CANCER_TYPES = [
  '非小细胞肺癌', '小细胞肺癌', '肺腺癌', '肺鳞癌', '肺癌',
  '乳腺癌', '胃癌', '食管癌', '贲门癌', '结直肠癌', '结肠癌', '直肠癌', '肝细胞癌', '肝癌', '胆管癌', '胆囊癌', '胰腺癌',
  '鼻咽癌', '喉癌', '口腔癌', '甲状腺癌', '宫颈癌', '子宫内膜癌', '卵巢癌', '前列腺癌', '膀胱癌', '肾细胞癌', '肾癌',
  '淋巴瘤', '白血病', '多发性骨髓瘤', '黑色素瘤', '胶质瘤', '骨肉瘤', '软组织肉瘤',
  'non-small cell lung cancer', 'small cell lung cancer', 'lung adenocarcinoma', 'lung cancer', 'breast cancer',
  'gastric cancer', 'colorectal cancer', 'rectal cancer', 'colon cancer', 'hepatocellular carcinoma', 'liver cancer',
  'pancreatic cancer', 'esophageal cancer', 'nasopharyngeal carcinoma', 'thyroid cancer', 'cervical cancer',
  'ovarian cancer', 'prostate cancer', 'bladder cancer', 'lymphoma', 'leukemia', 'melanoma',
] as const;

/** Organ + histology as reports write it ("右肺上叶腺癌", "左乳浸润性导管癌"), mapped to a vocabulary term. */
const ORGAN_FINDINGS: ReadonlyArray<[RegExp, string]> = [
  [/肺[\p{Script=Han}]{0,6}腺癌/u, '肺腺癌'],
  [/肺[\p{Script=Han}]{0,6}鳞(?:状细胞)?癌/u, '肺鳞癌'],
  [/乳(?:腺|房)?[\p{Script=Han}]{0,8}癌/u, '乳腺癌'],
  [/胃[\p{Script=Han}]{0,6}癌/u, '胃癌'],
  [/食管[\p{Script=Han}]{0,6}癌/u, '食管癌'],
  [/结肠[\p{Script=Han}]{0,6}癌/u, '结肠癌'],
  [/直肠[\p{Script=Han}]{0,6}癌/u, '直肠癌'],
  [/肝[\p{Script=Han}]{0,4}细胞癌/u, '肝细胞癌'],
];

const NEGATION = /(排除|除外|否认|未见|无|非)$/u;
const DIAGNOSIS_LINE = /(?:诊\s*断|Diagnosis|印象)[^\n]*/giu;

function vocabularyTerm(text: string): string | null {
  const lower = text.toLowerCase();
  for (const term of CANCER_TYPES) {
    let from = 0;
    for (let at = lower.indexOf(term, from); at >= 0; at = lower.indexOf(term, from)) {
      if (!NEGATION.test(text.slice(Math.max(0, at - 2), at))) return term;
      from = at + term.length;
    }
  }
  for (const [pattern, term] of ORGAN_FINDINGS) {
    const match = pattern.exec(text);
    if (match && !NEGATION.test(text.slice(Math.max(0, match.index - 2), match.index))) return term;
  }
  return null;
}

/** The cancer type named on a diagnosis line, else anywhere in the text. */
export function extractCancerType(text: string): string | null {
  for (const line of text.match(DIAGNOSIS_LINE) ?? []) {
    const term = vocabularyTerm(line);
    if (term) return term;
  }
  return vocabularyTerm(text);
}

const ROMAN: Record<string, string> = { Ⅰ: 'I', Ⅱ: 'II', Ⅲ: 'III', Ⅳ: 'IV', '2': 'II', '3': 'III', '4': 'IV' };
/**
 * After a 分期/Stage label, OCR reads the bars of a Roman numeral as I, l, 1 or | ("1IB" for
 * IIB): up to three of them (and a V) count as I. A Chinese reader may take three bars for 川
 * ("I川IA" for IIIA): a run of bars with 川 in it is III, the most bars a stage has. Without a
 * label only true numerals count.
 */
const STAGE_VALUE = '(IV|[Il1|川]{1,3}V?|V|Ⅳ|Ⅲ|Ⅱ|Ⅰ|[2-4])\\s*([ABCabc]?)';
const STAGE_PATTERNS = [
  new RegExp(`(?:分\\s*期|Stage)${SEP}${STAGE_VALUE}(?![A-Za-z0-9])`, 'iu'),
  new RegExp(`(?<![A-Za-z0-9])(IV|III|II|I|Ⅳ|Ⅲ|Ⅱ|Ⅰ)\\s*([ABCabc]?)\\s*期`, 'u'),
];

function romanStage(numeral: string): string {
  if (numeral.includes('川')) return 'III';
  return ROMAN[numeral] ?? numeral.replace(/[l1|]/g, 'I');
}
const TNM = /(?<![A-Za-z])([cpy]{0,2})T([0-4]|is|x|X)([a-d]?)\s*N([0-3]|x|X)([a-c]?)\s*M([01]|x|X)([a-c]?)(?![A-Za-z0-9])/u;

export function extractStage(text: string): string | null {
  const stage = firstMatch(text, STAGE_PATTERNS);
  if (stage) return romanStage(stage[1]!) + stage[2]!.toUpperCase();
  const tnm = TNM.exec(text);
  return tnm ? tnm[0].replace(/\s+/g, '') : null;
}

export function extractPatientInfo(text: string): PatientInfo {
  return { name: extractName(text), age: extractAge(text), cancer_type: extractCancerType(text), stage: extractStage(text) };
}
