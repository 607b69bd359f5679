import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ReportAdviceDraftRequest } from '../../contract/advice.js';
import type { ChatMessage } from '../../engines/types.js';
import type { Language } from '../text/language.js';

/**
 * Lengths the grammar enforces on the model's strings. The answer's token budget is derived
 * from them, so even a model that writes every string to its limit finishes its JSON.
 */
export const MAX_OVERALL_CHARS = 400;
export const MAX_RECOMMENDATIONS = 5;
export const MAX_RECOMMENDATION_CHARS = 160;
export const MAX_BASIS_DEPARTMENTS = 4;
export const MAX_OPEN_QUESTIONS_CHARS = 200;

/** Braces, keys and separators of an answer and of one recommendation (Qwen2 tokenizer, rounded up). */
const ANSWER_FRAME_TOKENS = 40;
const RECOMMENDATION_FRAME_TOKENS = 16;
const BASIS_FRAME_TOKENS = 3;

const SYSTEM: Record<Language, string> = {
  zh: `你是肿瘤多学科会诊（MDT）的病历助手。请根据病例概况和各科室意见，起草一份综合治疗建议参考稿，供主持医生审阅修改。
要求：
- 只综合各科室已经给出的意见，不补充未提及的检查结果、药物、剂量或疗程；
- 各科室一致之处合并表述；意见不一致时如实写明分歧和各自理由，不替医生做决定；
- overall：用几句话概括综合意见（不超过${MAX_OVERALL_CHARS}字）；
- recommendations：按优先顺序列出具体建议，每条不超过${MAX_RECOMMENDATION_CHARS}字，departments 写出该建议依据的科室名称；
- open_questions：仍需明确的问题或需补充的检查，没有则为空字符串；
- 全部用中文书写。`,
  en: `You assist a multidisciplinary cancer team (MDT). From the case summary and every department's opinion, draft a
comprehensive treatment-advice reference for the supervising doctor to review and edit.
Rules:
- Synthesize only what the departments said; never add test results, drugs, doses or schedules nobody mentioned.
- Merge what the departments agree on; where they disagree, state the disagreement and each side's reason, and do not decide it.
- overall: a few sentences summarizing the combined opinion (at most ${MAX_OVERALL_CHARS} characters).
- recommendations: concrete recommendations in order of priority, each at most ${MAX_RECOMMENDATION_CHARS} characters,
  with the names of the departments each one rests on.
- open_questions: what remains to be clarified or examined; an empty string when nothing does.
- Write everything in English.`,
};

interface Labels {
  cancer: string;
  diagnosis: string;
  question: string;
  opinions: string;
  supplement: (doctor: string) => string;
  field: (label: string, text: string) => string;
}

export const LABELS: Record<Language, Labels> = {
  zh: {
    cancer: '癌种',
    diagnosis: '诊断',
    question: '讨论问题',
    opinions: '各科室意见',
    supplement: (doctor) => `补充（${doctor}）`,
    field: (label, text) => `${label}：${text}`,
  },
  en: {
    cancer: 'Cancer type',
    diagnosis: 'Diagnosis',
    question: 'Question for the MDT',
    opinions: 'Department opinions',
    supplement: (doctor) => `Supplement (${doctor})`,
    field: (label, text) => `${label}: ${text}`,
  },
};

/** Identifies the prompts: a change to a template changes processor_version.prompt. */
export const ADVICE_PROMPT_VERSION = `advice-v1@${createHash('sha256')
  .update(
    [SYSTEM.zh, SYSTEM.en, caseTextTemplate(), MAX_OVERALL_CHARS, MAX_RECOMMENDATIONS, MAX_RECOMMENDATION_CHARS].join('\u0000'),
  )
  .digest('hex')
  .slice(0, 12)}`;

export interface AdviceAnswer {
  overall: string;
  recommendations: Array<{ advice: string; departments: string[] }>;
  open_questions: string;
}

/** Department names, once each, in the order the request gives them. */
export function departmentNames(request: ReportAdviceDraftRequest): string[] {
  return [...new Set(request.dept_opinions.map((opinion) => opinion.dept))];
}

/** The answer's shape; `departments` can only name departments that gave an opinion. */
export function adviceAnswer(departments: readonly string[]): z.ZodType<AdviceAnswer> {
  const department = z.enum(departments as [string, ...string[]]);
  return z.object({
    overall: z.string().max(MAX_OVERALL_CHARS),
    recommendations: z
      .array(
        z.object({
          advice: z.string().max(MAX_RECOMMENDATION_CHARS),
          departments: z.array(department).max(MAX_BASIS_DEPARTMENTS),
        }),
      )
      .max(MAX_RECOMMENDATIONS),
    open_questions: z.string().max(MAX_OPEN_QUESTIONS_CHARS),
  });
}

/** Worst case of one token per character (CJK), so a model writing every string to its limit still closes its JSON. */
export function answerTokenBudget(departments: readonly string[]): number {
  const longestDepartment = Math.max(...departments.map((name) => name.length));
  const recommendation =
    RECOMMENDATION_FRAME_TOKENS + MAX_RECOMMENDATION_CHARS + MAX_BASIS_DEPARTMENTS * (BASIS_FRAME_TOKENS + longestDepartment);
  return ANSWER_FRAME_TOKENS + MAX_OVERALL_CHARS + MAX_RECOMMENDATIONS * recommendation + MAX_OPEN_QUESTIONS_CHARS;
}

/** Each department's opinion, then its supplements with their doctors (attribution is kept everywhere). */
export function opinionLines(request: ReportAdviceDraftRequest, language: Language): string[] {
  const label = LABELS[language];
  return request.dept_opinions.flatMap((opinion) => [
    `【${opinion.dept}】${opinion.content}`,
    ...opinion.supplements.map((supplement) => `  ${label.field(label.supplement(supplement.doctor), supplement.content)}`),
  ]);
}

/** The case as the model reads it. */
export function caseText(request: ReportAdviceDraftRequest, language: Language): string {
  const label = LABELS[language];
  return [
    label.field(label.cancer, request.cancer_type),
    label.field(label.diagnosis, request.case_summary.diagnosis),
    label.field(label.question, request.case_summary.key_question),
    '',
    label.field(label.opinions, ''),
    ...opinionLines(request, language),
  ].join('\n');
}

/** The case text's layout, for the prompt version. */
function caseTextTemplate(): string {
  const sample = {
    request_id: '-',
    cancer_type: '{cancer}',
    case_summary: { diagnosis: '{diagnosis}', key_question: '{question}' },
    dept_opinions: [{ dept: '{dept}', content: '{content}', supplements: [{ doctor: '{doctor}', content: '{supplement}' }] }],
  };
  return caseText(sample, 'zh') + caseText(sample, 'en');
}

export function adviceMessages(request: ReportAdviceDraftRequest, language: Language): ChatMessage[] {
  return [
    { role: 'system', content: SYSTEM[language] },
    { role: 'user', content: caseText(request, language) },
  ];
}
