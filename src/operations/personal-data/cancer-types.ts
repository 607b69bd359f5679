/**
 * The cancer type a diagnosis names, by organ, in the language the diagnosis is written in: a
 * synonym table maps what reports write (右肺上叶腺癌, hepatocellular carcinoma, invasive ductal
 * carcinoma of the left breast) to one type per organ (肺癌 / lung cancer, 肝癌 / liver cancer,
 * 乳腺癌 / breast cancer). A term after a negation (排除肺癌, no evidence of lymphoma) names none,
 * and neither does an organ and a 癌 with a negation or a metastasis between them (胃镜未见癌,
 * 肺转移癌: a finding about the organ, or another cancer's spread to it).
 */

export interface CancerType {
  zh: string;
  en: string;
  /** How Chinese reports write it; an organ and its histology may have a few characters between them. Global, for matchAll. */
  zhTerms: readonly RegExp[];
  /** How English reports write it, matched case-insensitively. Global, for matchAll. */
  enTerms: readonly RegExp[];
}

/**
 * The Han characters a Chinese report writes between an organ and 癌: a site and a histology
 * (右肺上叶腺癌, 宫颈鳞状细胞癌, 鼻咽未分化型非角化性癌), never a negation (胃镜未见癌, 乳腺未见癌) or a
 * metastasis (肝转移癌).
 */
const HAN_GAP = '(?:(?!未(?!分化)|无|不|排除|除外|否认|转移)\\p{Script=Han}){0,8}';
/** The side, which OCR may read glued to the organ ("of the rightlung"). */
const SIDE = '(?:(?:left|right|bilateral)\\s*)?';
/** "adenocarcinoma of the right upper lobe of the lung": a few words between histology and organ. */
const OF_THE = '\\s+of\\s+(?:the\\s+)?(?:[a-z]+\\s+){0,6}?';
const CARCINOMA = '(?:carcinoma|cancer|adenocarcinoma|neoplasm|malignancy)';

const zh = (...terms: string[]) => terms.map((term) => new RegExp(term, 'gu'));
const en = (...terms: string[]) => terms.map((term) => new RegExp(`\\b${term}\\b`, 'giu'));
/** "<histology> of the <organ>" and "<organ> <histology>" for one organ's words. */
const organ = (words: string) => [
  `${CARCINOMA}${OF_THE}${SIDE}(?:${words})`,
  `${SIDE}(?:${words})\\s+(?:[a-z-]+\\s+){0,2}?${CARCINOMA}`,
];

export const CANCER_TYPES: readonly CancerType[] = [
  { zh: '肺癌', en: 'lung cancer', zhTerms: zh('肺癌', `肺${HAN_GAP}(?:腺|鳞状细胞|鳞|小细胞|大细胞)癌`), enTerms: en('NSCLC', 'SCLC', ...organ('lung|pulmonary|bronchus|bronchogenic')) },
  {
    zh: '乳腺癌', en: 'breast cancer',
    zhTerms: zh(`乳(?!头状)(?:腺|房)?${HAN_GAP}癌`),
    enTerms: en(...organ('breast|mammary'), `(?:invasive|infiltrating)\\s+(?:ductal|lobular)\\s+carcinoma`, 'ductal carcinoma in situ', 'DCIS'),
  },
  { zh: '肝癌', en: 'liver cancer', zhTerms: zh('肝细胞癌', '肝癌', '原发性肝癌'), enTerms: en('hepatocellular carcinoma', 'hepatoma', 'HCC', ...organ('liver|hepatic')) },
  { zh: '胃癌', en: 'gastric cancer', zhTerms: zh(`胃${HAN_GAP}癌`), enTerms: en(...organ('gastric|stomach')) },
  { zh: '食管癌', en: 'esophageal cancer', zhTerms: zh(`食管${HAN_GAP}癌`), enTerms: en(...organ('esophag(?:us|eal)|oesophag(?:us|eal)')) },
  { zh: '贲门癌', en: 'cardia cancer', zhTerms: zh('贲门癌'), enTerms: en(...organ('cardia|gastric cardia')) },
  { zh: '结直肠癌', en: 'colorectal cancer', zhTerms: zh('结直肠癌'), enTerms: en(...organ('colorectal|colorectum')) },
  { zh: '结肠癌', en: 'colon cancer', zhTerms: zh(`结肠${HAN_GAP}癌`), enTerms: en(...organ('colon|colonic|sigmoid colon|cecum|caecum')) },
  { zh: '直肠癌', en: 'rectal cancer', zhTerms: zh(`直肠${HAN_GAP}癌`), enTerms: en(...organ('rectum|rectal')) },
  { zh: '胆管癌', en: 'cholangiocarcinoma', zhTerms: zh(`胆管${HAN_GAP}癌`), enTerms: en('cholangiocarcinoma', ...organ('bile duct')) },
  { zh: '胆囊癌', en: 'gallbladder cancer', zhTerms: zh(`胆囊${HAN_GAP}癌`), enTerms: en(...organ('gallbladder')) },
  { zh: '胰腺癌', en: 'pancreatic cancer', zhTerms: zh(`胰腺?${HAN_GAP}癌`), enTerms: en(...organ('pancreas|pancreatic')) },
  { zh: '鼻咽癌', en: 'nasopharyngeal carcinoma', zhTerms: zh(`鼻咽${HAN_GAP}癌`), enTerms: en(...organ('nasopharynx|nasopharyngeal')) },
  { zh: '喉癌', en: 'laryngeal cancer', zhTerms: zh(`喉${HAN_GAP}癌`), enTerms: en(...organ('larynx|laryngeal')) },
  { zh: '口腔癌', en: 'oral cancer', zhTerms: zh(`口腔${HAN_GAP}癌`, `舌${HAN_GAP}癌`), enTerms: en(...organ('oral cavity|oral|tongue')) },
  { zh: '甲状腺癌', en: 'thyroid cancer', zhTerms: zh(`甲状腺${HAN_GAP}癌`), enTerms: en(...organ('thyroid')) },
  { zh: '宫颈癌', en: 'cervical cancer', zhTerms: zh(`宫颈${HAN_GAP}癌`), enTerms: en(...organ('cervix|cervical|uterine cervix')) },
  { zh: '子宫内膜癌', en: 'endometrial cancer', zhTerms: zh(`子宫内膜${HAN_GAP}癌`), enTerms: en(...organ('endometrium|endometrial')) },
  { zh: '卵巢癌', en: 'ovarian cancer', zhTerms: zh(`卵巢${HAN_GAP}癌`), enTerms: en(...organ('ovary|ovarian')) },
  { zh: '前列腺癌', en: 'prostate cancer', zhTerms: zh(`前列腺${HAN_GAP}癌`), enTerms: en(...organ('prostate|prostatic')) },
  { zh: '膀胱癌', en: 'bladder cancer', zhTerms: zh(`膀胱${HAN_GAP}癌`), enTerms: en(...organ('bladder|urinary bladder')) },
  { zh: '肾癌', en: 'kidney cancer', zhTerms: zh(`肾(?!上腺)${HAN_GAP}癌`), enTerms: en('renal cell carcinoma', 'RCC', ...organ('kidney|renal')) },
  { zh: '淋巴瘤', en: 'lymphoma', zhTerms: zh('淋巴瘤'), enTerms: en('(?:non-)?hodgkin\'?s?\\s+lymphoma', 'lymphoma') },
  { zh: '白血病', en: 'leukemia', zhTerms: zh('白血病'), enTerms: en('leuka?emia') },
  { zh: '多发性骨髓瘤', en: 'multiple myeloma', zhTerms: zh('多发性骨髓瘤'), enTerms: en('multiple myeloma') },
  { zh: '黑色素瘤', en: 'melanoma', zhTerms: zh('黑色素瘤'), enTerms: en('melanoma') },
  { zh: '胶质瘤', en: 'glioma', zhTerms: zh('胶质瘤', '胶质母细胞瘤'), enTerms: en('glioma', 'glioblastoma') },
  { zh: '骨肉瘤', en: 'osteosarcoma', zhTerms: zh('骨肉瘤'), enTerms: en('osteosarcoma') },
  { zh: '软组织肉瘤', en: 'soft tissue sarcoma', zhTerms: zh('软组织肉瘤'), enTerms: en('soft tissue sarcoma') },
];

/**
 * What every term's match holds (a Chinese one 癌, 瘤 or 病; an English one a word of these,
 * matched with the terms' own flags), so that a text with neither names no type. Most lines of a
 * page have neither; testing them with one short pattern spares running the ~80 terms on each,
 * and compiling them again whenever a full garbage collection has found them idle (V8 then drops
 * a pattern's code, and each term takes a fraction of a millisecond to compile).
 */
export const TERM_MARKS = {
  zh: /[癌瘤病]/u,
  en: /carcinoma|cancer|neoplasm|malignancy|sclc|dcis|hepatoma|hcc|rcc|lymphoma|leuka?emia|myeloma|melanoma|glio|sarcoma/iu,
} as const;

const ZH_NEGATION = /(?:排除|除外|否认|未见|无|非)$/u;
const EN_NEGATION = /\b(?:no|not|without|negative\s+for|rule\s+out|r\/o|no\s+evidence\s+of|free\s+of)\s+(?:\w+\s+){0,2}$/iu;
/** How far before a term a negation is looked for. */
const NEGATION_REACH = 30;

interface TermMatch {
  index: number;
  length: number;
  type: string;
}

function isNegated(text: string, index: number): boolean {
  const before = text.slice(Math.max(0, index - NEGATION_REACH), index);
  return ZH_NEGATION.test(before) || EN_NEGATION.test(before);
}

/** The first match of a (global) pattern in the text that no negation precedes. */
function firstAffirmed(pattern: RegExp, text: string): RegExpExecArray | undefined {
  for (const match of text.matchAll(pattern)) if (!isNegated(text, match.index)) return match as RegExpExecArray;
  return undefined;
}

/**
 * The cancer type of the earliest term the text names (the longer one where two start together:
 * 非小细胞肺癌 before 小细胞肺癌), in the term's language; null when it names none.
 */
export function cancerTypeOf(text: string): string | null {
  const [zhPossible, enPossible] = [TERM_MARKS.zh.test(text), TERM_MARKS.en.test(text)];
  if (!zhPossible && !enPossible) return null;
  const named: Array<readonly [readonly RegExp[], string]> = [];
  for (const type of CANCER_TYPES) {
    if (zhPossible) named.push([type.zhTerms, type.zh]);
    if (enPossible) named.push([type.enTerms, type.en]);
  }
  let best: TermMatch | undefined;
  for (const [terms, name] of named) {
    for (const term of terms) {
      const match = firstAffirmed(term, text);
      if (!match) continue;
      const better = !best || match.index < best.index || (match.index === best.index && match[0].length > best.length);
      if (better) best = { index: match.index, length: match[0].length, type: name };
    }
  }
  return best?.type ?? null;
}
