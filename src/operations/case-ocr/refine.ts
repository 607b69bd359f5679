/**
 * Optional refinement of the rules' patient_info by the LLM, under a JSON schema. The model sees
 * the start of the OCR text (where report headers carry these fields) and the rules' answer;
 * a value it gives counts only when it appears in the OCR text (compared without spaces,
 * punctuation, width or case), and age must be whole years; a cancer type is the one the synonym
 * table gives for the model's term, as for the rules'. A field the model leaves null or cannot
 * ground keeps the rules' value: the rules already required a labelled match.
 */
import { z } from 'zod';
import type { ChatMessage } from '../../engines/types.js';
import { normalizeForMatching } from '../speech-process/evidence.js';
import { cancerTypeOf } from '../personal-data/cancer-types.js';
import type { PatientInfo } from '../personal-data/patient-info.js';

export const REFINE_PROMPT_VERSION = 'patient-info-v1';
/** OCR text shown to the model; the fields sit in the header of a report. */
export const MAX_PROMPT_TEXT_CHARS = 2400;
export const REFINE_MAX_TOKENS = 160;

const field = z.string().max(40).nullable();
export const refinedAnswer = z.object({ name: field, age: field, cancer_type: field, stage: field });
export type RefinedAnswer = z.infer<typeof refinedAnswer>;

export function refineMessages(text: string, rules: PatientInfo): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        '你从病历OCR文本中提取患者信息。只使用文本中逐字出现的内容，不要推测；找不到或不确定的字段填 null。' +
        'name: 患者姓名; age: 年龄(只写数字, 单位为岁); cancer_type: 癌症类型(如 肺腺癌、乳腺癌); stage: 分期(如 IIIA 或 T2N1M0)。' +
        'OCR 可能有错字；规则提取结果仅供参考。',
    },
    {
      role: 'user',
      content: `规则提取结果: ${JSON.stringify(rules)}\n\nOCR文本:\n${text.slice(0, MAX_PROMPT_TEXT_CHARS)}`,
    },
  ];
}

function grounded(value: string | null, source: string): boolean {
  if (!value) return false;
  const needle = normalizeForMatching(value).chars;
  return needle.length > 0 && source.includes(needle);
}

/** The rules' answer with each grounded model value in place of the rules' one. */
export function mergeRefined(rules: PatientInfo, answer: RefinedAnswer, text: string): PatientInfo {
  const source = normalizeForMatching(text).chars;
  const age = answer.age?.replace(/\s*(岁|歲|years?)$/iu, '') ?? null;
  return {
    name: grounded(answer.name, source) ? answer.name : rules.name,
    age: age && /^\d{1,3}$/.test(age) && Number(age) > 0 && Number(age) <= 120 && grounded(age, source) ? age : rules.age,
    cancer_type: (grounded(answer.cancer_type, source) && cancerTypeOf(answer.cancer_type!)) || rules.cancer_type,
    stage: grounded(answer.stage, source) ? answer.stage!.replace(/\s+/g, '').replace(/期$/u, '') : rules.stage,
  };
}
