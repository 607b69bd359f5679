import type { ReportAdviceDraftRequest } from '../../contract/advice.js';
import { LIMITS } from '../../contract/limits.js';
import { isWrittenIn, looksDegenerate, type Language } from '../text/language.js';
import { cutAtSentence } from '../text/sentences.js';
import { condenseRequest, freeTextLength } from './condense.js';
import { LABELS, opinionLines, type AdviceAnswer } from './prompts.js';

/** Longest the case summary's diagnosis or question may run in the draft's header. */
const MAX_HEADER_FIELD_CHARS = 500;

const WORDING: Record<
  Language,
  { title: string; overall: string; recommendations: string; openQuestions: string; opinions: string; basis: (depts: string[]) => string; marker: string; section: (n: number, title: string) => string }
> = {
  zh: {
    title: '综合治疗建议参考稿（AI 生成，仅供主持医生审阅参考，不作为正式治疗意见）',
    overall: '综合意见',
    recommendations: '治疗建议',
    openQuestions: '待明确问题',
    opinions: '各科室意见（原文摘录）',
    basis: (depts) => `（依据：${depts.join('、')}）`,
    marker: '……',
    section: (n, title) => `${'一二三四五'[n - 1]}、${title}`,
  },
  en: {
    title: 'Treatment advice draft (AI-generated reference for the supervising doctor; not the formal treatment advice)',
    overall: 'Overall opinion',
    recommendations: 'Recommendations',
    openQuestions: 'Open questions',
    opinions: 'Department opinions (excerpts)',
    basis: (depts) => ` (based on: ${depts.join(', ')})`,
    marker: '…',
    section: (n, title) => `${n}. ${title}`,
  },
};

/**
 * What of the model's answer is usable: non-empty prose in the language of the opinions (not a
 * loop of repeated characters), departments once each.
 */
export function usableAnswer(answer: AdviceAnswer, language: Language): AdviceAnswer {
  const usable = (text: string) => (isWrittenIn(text, language) && !looksDegenerate(text) ? text.trim() : '');
  return {
    overall: usable(answer.overall),
    recommendations: answer.recommendations
      .map((item) => ({ advice: usable(item.advice), departments: [...new Set(item.departments)] }))
      .filter((item) => item.advice.length > 0),
    open_questions: usable(answer.open_questions),
  };
}

export function hasAdvice(answer: AdviceAnswer): boolean {
  return answer.overall.length > 0 || answer.recommendations.length > 0;
}

/**
 * The draft the platform receives: a title that marks it as a reference, the case, the model's
 * synthesis, then the departments' own opinions with their doctors, excerpted to fit. Never
 * empty, never over 10,000 characters; anything cut ends at a sentence boundary.
 */
export function composeDraft(request: ReportAdviceDraftRequest, answer: AdviceAnswer, language: Language): string {
  const words = WORDING[language];
  const label = LABELS[language];
  const header = [
    words.title,
    label.field(label.cancer, request.cancer_type),
    label.field(label.diagnosis, cutAtSentence(request.case_summary.diagnosis, MAX_HEADER_FIELD_CHARS, words.marker)),
    label.field(label.question, cutAtSentence(request.case_summary.key_question, MAX_HEADER_FIELD_CHARS, words.marker)),
  ].join('\n');
  const sections: Array<[string, string]> = [];
  if (answer.overall) sections.push([words.overall, answer.overall]);
  if (answer.recommendations.length > 0) {
    const items = answer.recommendations.map(
      (item, index) => `${index + 1}. ${item.advice}${item.departments.length > 0 ? words.basis(item.departments) : ''}`,
    );
    sections.push([words.recommendations, items.join('\n')]);
  }
  if (answer.open_questions) sections.push([words.openQuestions, answer.open_questions]);
  const synthesis = sections.map(([title, body], index) => `${words.section(index + 1, title)}\n${body}`);
  const opinionsTitle = words.section(sections.length + 1, words.opinions);

  const fixed = [header, ...synthesis, opinionsTitle].join('\n\n');
  const room = LIMITS.adviceDraftChars - fixed.length - 2;
  const opinions = opinionLines(fitOpinions(request, room, language), language).join('\n');
  return cutAtSentence(`${fixed}\n${opinions}`, LIMITS.adviceDraftChars, words.marker);
}

/** The opinions, excerpted until their lines, with department and doctor labels, fit `room` characters. */
function fitOpinions(request: ReportAdviceDraftRequest, room: number, language: Language): ReportAdviceDraftRequest {
  const opinionsOnly = { ...request, case_summary: { diagnosis: '', key_question: '' } };
  const textChars = freeTextLength(opinionsOnly);
  const labelChars = opinionLines(opinionsOnly, language).join('\n').length - textChars;
  const textRoom = Math.max(0, room - labelChars);
  return textChars <= textRoom ? opinionsOnly : condenseRequest(opinionsOnly, textRoom, WORDING[language].marker);
}
