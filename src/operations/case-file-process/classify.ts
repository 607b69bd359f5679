/**
 * Document category of a case file by deterministic rules over its OCR text (Chinese or
 * English). Each category has title phrases, section phrases and countable cues (lab units,
 * doses, imaging modalities); the category with the highest score wins when it reaches
 * MIN_SCORE, else `other`. The rule table is documented in docs/operators-guide.md
 * ("Document classification (AI-4)"): change both together.
 */

import { DOCUMENT_CATEGORIES, type DocumentCategory } from '../../contract/case-files.js';

type DocumentKind = Exclude<DocumentCategory, 'other'>;

export interface RuleClassification {
  category: DocumentCategory;
  /** 0..1, how clearly the winner beat the runner-up */
  confidence: number;
  /** the evidence phrases found, for logs (they are not personal) */
  evidence: string[];
}

/** Only the start of a file is read: its kind shows in the header and the first sections. */
export const MAX_RULE_TEXT_CHARS = 4000;
/**
 * The title region: the first lines (hospital, department, title), each up to its first field
 * colon and TITLE_LINE_CHARS, so "现病史：外院病理报告示…" on line 2 is a body mention.
 */
const TITLE_LINES = 4;
const TITLE_LINE_CHARS = 80;
/** A title names the document: it outweighs the sections another kind of document quotes. */
const TITLE_WEIGHT = 10;
/** A title phrase outside the title region is a reference ("病理报告示…"), worth a section phrase. */
const BODY_TITLE_WEIGHT = 3;
/** Below this score nothing is convincing: two strong section phrases or one title reach it. */
export const MIN_SCORE = 6;
/** A score from which the winner's margin is taken at face value; weaker wins are less confident. */
const CONFIDENT_SCORE = 12;

interface Cue {
  label: string;
  pattern: RegExp;
  weight: number;
  /** Occurrences counted: 1 for a phrase, more for cues that repeat in a document's own rows. */
  maxCount: number;
}

interface CategoryRules {
  titles: Cue[];
  cues: Cue[];
}

const ASCII_ALNUM = /[a-z0-9]/;

/**
 * A phrase as a pattern over normalised text: an ASCII end must not continue a word ("ct" is
 * not in "fact"), and a space between English words is optional.
 */
function phrasePattern(phrase: string): RegExp {
  const body = phrase.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&').replace(/ /g, ' ?');
  const before = ASCII_ALNUM.test(phrase[0]!) ? '(?<![a-z0-9])' : '';
  const after = ASCII_ALNUM.test(phrase.at(-1)!) ? '(?![a-z0-9])' : '';
  return new RegExp(before + body + after, 'gu');
}

function phrases(weight: number, list: readonly string[]): Cue[] {
  return list.map((label) => ({ label, pattern: phrasePattern(label), weight, maxCount: 1 }));
}

function counted(label: string, pattern: RegExp, maxCount: number): Cue {
  return { label, pattern, weight: 1, maxCount };
}

/** "10^9/L" as OCR reads it: "10^9/L", "109/L" (NFKC of a superscript) or "10°9/L". */
const LAB_UNIT = /(?<![a-z])(?:10[\^°]?(?:9|12)\/l|[mnpμu]?mol\/l|[mnpμ]?g\/d?l|[ui]?u\/m?l|[mnp]g\/ml|fl)(?![a-z])/gu;
/** Reference ranges "3.50~9.50", "3.5-9.5" (decimals, so dates do not count); OCR may read "." as ",". */
const REFERENCE_RANGE = /\d(?:[.,]\d+)?~\d|\d[.,]\d+-{1,2}\d+[.,]\d/gu;
const DOSE = /\d ?(?:mg|mcg|μg|ug|g|ml|iu|片|粒|支|袋|丸)(?![a-z/])/gu;
const FREQUENCY = /(?<![a-z])(?:qd|bid|tid|qid|qn|qod|q\d{1,2}h|prn|ivgtt|po)(?![a-z0-9])|每日|每天|口服|静滴|静脉滴注|皮下注射/gu;
/** MR and DR only beside Chinese ("头颅MR平扫", "胸部DR"): in English they are "Mr." and "Dr.". */
const MODALITY = /(?<![a-z])(?:ct|mri|pet-ct)(?![a-z])|(?<=\p{Script=Han})(?:mr|dr)(?![a-z])|(?<![a-z])(?:mr|dr)(?=\p{Script=Han})|b超|彩超|超声|x线/gu;

const RULES: Record<DocumentKind, CategoryRules> = {
  pathology_report: {
    titles: phrases(TITLE_WEIGHT, [
      '病理诊断报告', '病理报告', '病理检查报告', '病理会诊', '细胞学报告', '细胞学检查报告',
      'pathology report', 'surgical pathology', 'cytology report', 'pathology consultation',
    ]),
    cues: [
      ...phrases(4, ['病理号', '免疫组化', '镜下所见', '大体所见', '肉眼所见', '巨检', 'immunohistochemistry', 'gross description', 'microscopic description']),
      ...phrases(3, ['送检标本', '标本名称', '分子病理', 'microscopic', 'ihc']),
      ...phrases(2, ['病理诊断', '冰冻', '切片', 'ki-67', 'specimen', 'final diagnosis']),
    ],
  },
  imaging_report: {
    titles: phrases(TITLE_WEIGHT, [
      '影像诊断报告', '影像学报告', '影像报告', '放射科报告', 'ct检查报告', 'ct报告', 'mri检查报告', 'mri报告', 'mr检查报告', 'mr报告', 'dr检查报告', 'dr报告',
      '超声检查报告', '超声报告', '彩超报告', 'x线检查报告', 'x线报告', 'pet-ct报告', '医学影像',
      'radiology report', 'imaging report', 'ct report', 'mri report', 'ultrasound report',
    ]),
    cues: [
      ...phrases(4, ['检查所见', '影像所见', '影像学表现', '影像学诊断', '超声所见', '超声提示']),
      ...phrases(3, ['影像诊断', '放射科', '检查方法', '增强扫描', '平扫', 'radiology', 'technique', 'impression']),
      ...phrases(2, ['印象', '检查部位', '诊断意见', 'findings', 'contrast']),
      counted('ct/mri/超声…', MODALITY, 3),
    ],
  },
  lab_report: {
    titles: phrases(TITLE_WEIGHT, [
      '检验报告单', '检验报告', '化验报告单', '化验单', '检验结果报告', 'laboratory report', 'lab report', 'laboratory results',
    ]),
    cues: [
      ...phrases(4, ['检验项目', '参考范围', '参考值', '参考区间', 'reference range', 'reference interval']),
      ...phrases(3, ['检验者', '检验科', '采样时间', '标本类型', 'laboratory']),
      ...phrases(2, ['血常规', '生化', '肝功能', '肾功能', '审核者', 'units']),
      ...phrases(1, ['结果', 'result']),
      counted('10^9/L, g/L, mmol/L…', LAB_UNIT, 8),
      counted('3.5~9.5 ranges', REFERENCE_RANGE, 8),
    ],
  },
  admission_record: {
    titles: phrases(TITLE_WEIGHT, ['入院记录', '入院病历', '住院病历', 'admission note', 'admission record', 'history and physical']),
    cues: [
      ...phrases(4, ['主诉', '现病史', '病史陈述者', 'chief complaint', 'history of present illness']),
      ...phrases(3, ['既往史', '个人史', '体格检查', '初步诊断', 'past medical history', 'physical examination']),
      ...phrases(2, ['婚育史', '月经史', '家族史', '专科检查', 'family history', 'social history']),
      ...phrases(1, ['入院日期', '入院诊断', '辅助检查', 'admission date']),
    ],
  },
  discharge_summary: {
    titles: phrases(TITLE_WEIGHT, ['出院记录', '出院小结', '出院总结', '出院证明', 'discharge summary', 'discharge note']),
    cues: [
      ...phrases(4, ['出院诊断', '出院医嘱', '出院情况', '住院经过', '诊疗经过', 'hospital course', 'discharge diagnosis']),
      ...phrases(3, ['出院日期', '住院天数', '出院带药', '治疗经过', 'discharge medications', 'discharge instructions', 'discharge date']),
      ...phrases(2, ['入院情况', 'condition at discharge']),
    ],
  },
  surgery_record: {
    titles: phrases(TITLE_WEIGHT, ['手术记录', '手术报告', 'operative report', 'operation note', 'operative note', 'operation record']),
    cues: [
      ...phrases(4, ['手术名称', '手术经过', '麻醉方式', '术中所见', 'preoperative diagnosis', 'postoperative diagnosis', 'estimated blood loss', 'operative findings']),
      ...phrases(3, ['手术步骤', '术前诊断', '术后诊断', '手术日期', '主刀', '术中出血', 'anesthesia', 'anaesthesia', 'surgeon']),
      ...phrases(2, ['术者', '手术时间', '麻醉医师', 'procedure']),
    ],
  },
  medication_record: {
    titles: phrases(TITLE_WEIGHT, ['医嘱单', '处方笺', '处方单', '用药记录', '用药清单', 'prescription', 'medication list', 'medication record']),
    cues: [
      ...phrases(4, ['用法用量', '药品名称', '给药途径', 'dosage']),
      ...phrases(3, ['处方', '频次', '规格', '长期医嘱', '临时医嘱', 'medication', 'frequency']),
      ...phrases(2, ['用药', '剂量', '停止时间', 'route']),
      counted('mg/片/ml…', DOSE, 4),
      counted('qd/bid/tid/每日…', FREQUENCY, 4),
    ],
  },
};

/**
 * NFKC (full-width forms), lower case, and no spaces except one between two ASCII letters
 * or digits, so "病 理 号" reads "病理号" while "chief complaint" keeps its words apart.
 */
function normalizeLine(line: string): string {
  return line
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/gu, (space: string, at: number, whole: string) =>
      ASCII_ALNUM.test(whole[at - 1] ?? '') && ASCII_ALNUM.test(whole[at + space.length] ?? '') ? ' ' : '',
    );
}

export function normalizeForRules(text: string): string {
  return text.slice(0, MAX_RULE_TEXT_CHARS).split('\n').map(normalizeLine).filter(Boolean).join('\n');
}

function titleLines(normalized: string): string {
  return normalized
    .split('\n', TITLE_LINES)
    .map((line) => line.split(':', 1)[0]!.slice(0, TITLE_LINE_CHARS))
    .join('\n');
}

function occurrences(pattern: RegExp, text: string, maxCount: number): number {
  let count = 0;
  for (const _match of text.matchAll(pattern)) if (++count >= maxCount) break;
  return count;
}

interface Score {
  category: DocumentKind;
  score: number;
  evidence: string[];
}

function scoreCategory(category: DocumentKind, text: string, titleRegion: string): Score {
  const { titles, cues } = RULES[category];
  const evidence: string[] = [];
  let score = 0;
  const title = titles.find((cue) => occurrences(cue.pattern, titleRegion, 1) > 0);
  const mentioned = title ?? titles.find((cue) => occurrences(cue.pattern, text, 1) > 0);
  if (mentioned) {
    score += title ? title.weight : BODY_TITLE_WEIGHT;
    evidence.push(mentioned.label);
  }
  for (const cue of cues) {
    const count = occurrences(cue.pattern, text, cue.maxCount);
    if (count === 0) continue;
    score += cue.weight * count;
    evidence.push(count > 1 ? `${cue.label} ×${count}` : cue.label);
  }
  return { category, score, evidence };
}

/**
 * Confidence is the winner's margin over the runner-up, (top − second) / top, scaled down
 * when the winning score itself is weak; for `other` it is how far the best score stayed
 * below MIN_SCORE (1 when no cue at all was found).
 */
export function classifyByRules(text: string): RuleClassification {
  const normalized = normalizeForRules(text);
  const titleRegion = titleLines(normalized);
  const kinds = DOCUMENT_CATEGORIES.filter((category): category is DocumentKind => category !== 'other');
  // A stable sort keeps the category order above as the tie-break, so ties are deterministic.
  const [best, runnerUp] = kinds.map((kind) => scoreCategory(kind, normalized, titleRegion)).sort((a, b) => b.score - a.score);
  if (!best || best.score < MIN_SCORE) {
    const score = best?.score ?? 0;
    return { category: 'other', confidence: round((MIN_SCORE - score) / MIN_SCORE), evidence: best?.evidence ?? [] };
  }
  const margin = (best.score - (runnerUp?.score ?? 0)) / best.score;
  return { category: best.category, confidence: round(margin * Math.min(1, best.score / CONFIDENT_SCORE)), evidence: best.evidence };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
