import type { ReportAdviceDraftRequest } from '../../contract/advice.js';
import { GatewayError } from '../../errors.js';
import type { LlmCalls } from '../llm-calls.js';
import { detectLanguage, type Language } from '../text/language.js';
import { composeDraft, hasAdvice, usableAnswer } from './compose.js';
import { condenseRequest, freeTextLength } from './condense.js';
import { adviceAnswer, adviceMessages, answerTokenBudget, departmentNames } from './prompts.js';

/** Chat template and role markers around the messages (measured on Qwen2's template, rounded up). */
const TEMPLATE_TOKENS = 64;
/** Smallest share of the context the case text may be squeezed into before we give up. */
const MIN_CASE_TOKENS = 256;
/** Token counts move a little when text is cut; condensed text aims this far under its budget. */
const FILL_SHARE = 0.9;
const MAX_CONDENSE_ROUNDS = 4;

/**
 * AI-3: the model synthesizes the departments' opinions into advice (in their language); the
 * code composes the draft around it. A case too long for the context is condensed first, each
 * text cut at sentence boundaries by a fair share. An answer with nothing usable is an error
 * (retried by the job runner), never an empty draft.
 */
export async function draftAdvice(request: ReportAdviceDraftRequest, llm: LlmCalls, deadline: number): Promise<string> {
  const language = languageOf(request);
  const departments = departmentNames(request);
  const maxTokens = answerTokenBudget(departments);
  const prompt = await fitToContext(request, language, maxTokens, llm);
  const answer = await llm.generate({
    messages: adviceMessages(prompt, language),
    schema: adviceAnswer(departments),
    maxTokens,
    deadline,
  });
  const usable = usableAnswer(answer, language);
  if (!hasAdvice(usable)) {
    throw new GatewayError('engine_failed', `the model's answer held no usable advice in the opinions' language (${language})`);
  }
  return composeDraft(request, usable, language);
}

/** The language the opinions are written in; the draft answers in it. */
export function languageOf(request: ReportAdviceDraftRequest): Language {
  const texts = request.dept_opinions.flatMap((opinion) => [opinion.content, ...opinion.supplements.map((s) => s.content)]);
  return detectLanguage([request.case_summary.diagnosis, request.case_summary.key_question, ...texts].join('\n'));
}

async function fitToContext(
  request: ReportAdviceDraftRequest,
  language: Language,
  maxTokens: number,
  llm: LlmCalls,
): Promise<ReportAdviceDraftRequest> {
  let prompt = request;
  for (let round = 0; round < MAX_CONDENSE_ROUNDS; round++) {
    const messages = adviceMessages(prompt, language);
    const { contextTokens, tokens } = await llm.measure(messages.map((message) => message.content));
    const budget = contextTokens - maxTokens - TEMPLATE_TOKENS - tokens[0]!;
    if (budget < MIN_CASE_TOKENS) break;
    const caseTokens = tokens[1]!;
    if (caseTokens <= budget) return prompt;
    const textBudget = Math.floor((freeTextLength(prompt) * budget * FILL_SHARE) / caseTokens);
    prompt = condenseRequest(request, textBudget, language === 'zh' ? '……' : '…');
  }
  throw new GatewayError(
    'payload_too_large',
    'the consultation does not fit the LLM context even condensed; raise LLM_CONTEXT_SIZE',
  );
}
