/**
 * Optional refinement of the rules' document category by the LLM, under a JSON schema whose
 * enum admits only the eight categories. The model sees the start of the text and the rules'
 * answer; mergeClassification decides whose category stands.
 */
import { z } from 'zod';
import type { ChatMessage } from '../../engines/types.js';
import { documentCategory, type DocumentCategory } from '../../contract/case-files.js';
import type { RuleClassification } from './classify.js';

/** Text shown to the model: the title and first sections carry a document's kind. */
export const CLASSIFY_PROMPT_TEXT_CHARS = 1500;
/** {"category":"discharge_summary"} is about a dozen tokens. */
export const CLASSIFY_MAX_TOKENS = 32;
/** Rules at or above this confidence keep their category whatever the model says. */
export const RULES_CONFIDENT = 0.5;

export const classifyAnswer = z.object({ category: documentCategory });

const CATEGORY_GUIDE =
  'pathology_report: 病理报告(镜下所见、免疫组化); imaging_report: 影像/放射/超声报告(CT、MRI、检查所见、印象); ' +
  'lab_report: 检验/化验报告单(项目、结果、参考范围); admission_record: 入院记录(主诉、现病史、既往史); ' +
  'discharge_summary: 出院记录/出院小结(诊疗经过、出院诊断、出院医嘱); surgery_record: 手术记录(手术名称、麻醉方式、手术经过); ' +
  'medication_record: 医嘱单/处方/用药记录; other: 以上都不是。';

export function classifyMessages(text: string, rules: RuleClassification): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        '你判断一份病历文件(OCR文本，可能有错字)属于哪一类，只回答一个类别。类别: ' +
        CATEGORY_GUIDE +
        '文件会提到其他类文件的内容(出院记录写入院情况和化验结果)，按文件本身的标题和结构判断。规则判断结果仅供参考。',
    },
    {
      role: 'user',
      content:
        `规则判断结果: ${JSON.stringify({ category: rules.category, evidence: rules.evidence })}\n\n` +
        `OCR文本:\n${text.slice(0, CLASSIFY_PROMPT_TEXT_CHARS)}`,
    },
  ];
}

/**
 * The model's category only where the rules were unsure (confidence below RULES_CONFIDENT) or
 * found nothing (`other`). Confident rules win because the rules must hold on their own: a
 * model with random or unsuitable weights still answers a valid enum value, and it must not
 * be able to overturn a document whose title and sections the rules clearly read.
 */
export function mergeClassification(rules: RuleClassification, answer: { category: DocumentCategory }): DocumentCategory {
  return rules.category === 'other' || rules.confidence < RULES_CONFIDENT ? answer.category : rules.category;
}
