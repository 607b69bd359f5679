import type { SpeechProcessRequest, SpeechProcessResponse } from '../../contract/speech.js';
import { GatewayError } from '../../errors.js';
import { runAtMost } from '../../platform/concurrency.js';
import { OPERATIONS } from '../../contract/operations.js';
import type { OperationContext } from '../context.js';
import { statelessOperation } from '../operation.js';
import { llmCalls, type LlmCalls } from '../llm-calls.js';
import { speechArtifactKey, type ProcessorVersion } from './artifact.js';
import { locateQuote, normalizeForMatching, saysMoreThanName, type Span } from './evidence.js';
import {
  MAX_CONCLUSION_CHARS,
  MAX_QUOTE_CHARS,
  MAX_VALUE_CHARS,
  PROMPT_VERSION,
  conclusionAnswer,
  conclusionMessages,
  judgeAnswer,
  judgeMessages,
  judgeOverhead,
  judgeVerdicts,
  organizeAnswer,
  organizeMessages,
  organizedValue,
  type JudgeVerdict,
  type PointEvidence,
} from './prompts.js';
import { placeSegments, voicesFor } from './voices.js';
import { splitIntoWindows } from './windows.js';

/** Points judged or organized in one call: keeps answers short and prompts inside small contexts. */
const POINTS_PER_CALL = 6;
/** Braces, keys and field names of an answer, per point and per call (measured on the Qwen2 tokenizer, rounded up). */
const ANSWER_TOKENS_PER_POINT = 24;
const ANSWER_TOKENS_PER_CALL = 32;
/** Worst case of one token per character for strings (CJK); real answers use far fewer. */
const JUDGE_TOKENS_PER_POINT = ANSWER_TOKENS_PER_POINT + MAX_QUOTE_CHARS;
const ORGANIZE_TOKENS_PER_POINT = ANSWER_TOKENS_PER_POINT + MAX_VALUE_CHARS;
const CONCLUSION_TOKENS = ANSWER_TOKENS_PER_CALL + MAX_CONCLUSION_CHARS;
const SAFETY_TOKENS = 64;
/** Model calls one request keeps in flight (windows and batches); the LLM's sequences are shared by all requests. */
const CALLS_IN_FLIGHT_PER_REQUEST = 2;
const MIN_WINDOW_TOKENS = 128;
const WINDOW_OVERLAP_SHARE = 0.15;
/** Token counts of a text vary a little by where it is cut; windows leave this much room. */
const WINDOW_FILL_SHARE = 0.9;

type StoredSpeechResult = Omit<SpeechProcessResponse, 'request_id' | 'from_cache'>;

interface Evidence {
  span: Span;
  notApplicable: boolean;
}

/**
 * AI-1 & AI-2. The model proposes which points the speech covers and quotes its evidence;
 * the code decides: a point is covered only when its quote is found in the speech and says
 * more than the point's name. Everything the response promises (covered ∪ missing = points, in
 * order, organized only when complete) holds whatever the model says.
 */
async function processSpeech(request: SpeechProcessRequest, context: OperationContext): Promise<SpeechProcessResponse> {
  context.engines.requireReady('llm');
  const processor: ProcessorVersion = { prompt: PROMPT_VERSION, model: context.engines.status('llm').model ?? 'unknown' };
  const artifactKey = speechArtifactKey(request, processor);
  const cached = await context.stores.artifacts.get(artifactKey);
  if (cached) return { ...(cached.value as StoredSpeechResult), request_id: request.request_id, from_cache: true };

  const llm = llmCalls(context.engines, context.signal);
  const answers = await judgeCoverage(request, llm);
  const evidence = groundAnswers(request, answers);
  const covered = request.points.filter((p) => evidence.has(p.seq));
  const missing = request.points.filter((p) => !evidence.has(p.seq));
  const organized = missing.length === 0 ? await organize(request, evidence, llm) : null;
  const result: StoredSpeechResult = {
    is_complete: missing.length === 0,
    covered,
    missing,
    organized,
    processor_version: processor,
    artifact_key: artifactKey,
  };
  await context.stores.artifacts.put(artifactKey, result);
  return { ...result, request_id: request.request_id, from_cache: false };
}

export const speechProcessOperation = statelessOperation(OPERATIONS.speechProcess, processSpeech);

function chunk<T>(items: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, i * size + size));
}

/** Judges every batch of points on every window of the speech; a long speech is cut into overlapping windows. */
async function judgeCoverage(request: SpeechProcessRequest, llm: LlmCalls): Promise<JudgeVerdict[]> {
  const batches = chunk(request.points, POINTS_PER_CALL);
  const speech = request.speech_text;
  const measured = await llm.measure([speech, ...batches.map((batch) => judgeOverhead(request, batch))]);
  const [speechTokens, ...overheads] = measured.tokens as [number, ...number[]];
  const charsPerToken = speech.length / Math.max(1, speechTokens);
  const calls = batches.flatMap((batch, index) => {
    const maxTokens = ANSWER_TOKENS_PER_CALL + batch.length * JUDGE_TOKENS_PER_POINT;
    const budget = measured.contextTokens - overheads[index]! - maxTokens - SAFETY_TOKENS;
    if (budget < MIN_WINDOW_TOKENS) {
      throw new GatewayError('payload_too_large', 'the points and prompt do not fit the LLM context; raise LLM_CONTEXT_SIZE');
    }
    const windowChars = speechTokens <= budget ? speech.length : Math.floor(budget * charsPerToken * WINDOW_FILL_SHARE);
    const windows = splitIntoWindows(speech, windowChars, Math.floor(windowChars * WINDOW_OVERLAP_SHARE));
    return windows.map((window, part) => () => {
      const label = windows.length > 1 ? `（第${part + 1}/${windows.length}段）` : '';
      const messages = judgeMessages(request, batch, speech.slice(window.start, window.end), label);
      return llm.generate({ messages, schema: judgeAnswer(batch), maxTokens }).then((answer) => judgeVerdicts(batch, answer));
    });
  });
  return (await runAtMost(CALLS_IN_FLIGHT_PER_REQUEST, calls)).flat();
}

/** Keeps, per point, the best located evidence: a statement of content before a not-applicable one, then the longer. */
function groundAnswers(request: SpeechProcessRequest, answers: JudgeVerdict[]): Map<number, Evidence> {
  const speech = request.speech_text;
  const normalized = normalizeForMatching(speech);
  const names = new Map(request.points.map((p) => [p.seq, p.name]));
  const evidence = new Map<number, Evidence>();
  for (const answer of answers) {
    if (answer.status === 'missing') continue;
    const span = locateQuote(speech, answer.quote, normalized);
    if (!span || !saysMoreThanName(speech.slice(span.start, span.end), names.get(answer.seq)!)) continue;
    const candidate = { span, notApplicable: answer.status === 'not_applicable' };
    const current = evidence.get(answer.seq);
    if (!current || isBetter(candidate, current)) evidence.set(answer.seq, candidate);
  }
  return evidence;
}

function isBetter(candidate: Evidence, current: Evidence): boolean {
  if (candidate.notApplicable !== current.notApplicable) return !candidate.notApplicable;
  return candidate.span.end - candidate.span.start > current.span.end - current.span.start;
}

async function organize(
  request: SpeechProcessRequest,
  evidence: Map<number, Evidence>,
  llm: LlmCalls,
): Promise<NonNullable<SpeechProcessResponse['organized']>> {
  const speech = request.speech_text;
  const pointEvidence: PointEvidence[] = request.points.map((point) => {
    const { span, notApplicable } = evidence.get(point.seq)!;
    return { point, sourceText: speech.slice(span.start, span.end), notApplicable };
  });
  const batches = chunk(pointEvidence, POINTS_PER_CALL);
  const single = batches.length === 1;
  const answers = await runAtMost(
    CALLS_IN_FLIGHT_PER_REQUEST,
    batches.map((batch) => () =>
      llm.generate({
        messages: organizeMessages(request, batch, single),
        schema: organizeAnswer(batch.map((e) => e.point), single),
        maxTokens: batch.length * ORGANIZE_TOKENS_PER_POINT + (single ? CONCLUSION_TOKENS : ANSWER_TOKENS_PER_CALL),
      }),
    ),
  );
  const values = new Map(
    batches.flatMap((batch, index) => batch.map((e) => [e.point.seq, organizedValue(e.point, answers[index]!)] as const)),
  );
  const placed = placeSegments(speech, request.voice_segments ?? []);
  const structured = pointEvidence.map(({ point, sourceText }) => ({
    seq: point.seq,
    point: point.name,
    // A value the model left empty falls back to the doctor's own words.
    value: values.get(point.seq) || sourceText.trim().slice(0, MAX_VALUE_CHARS),
    source_text: sourceText,
    voices: voicesFor(evidence.get(point.seq)!.span, placed),
  }));
  const conclusion = single
    ? (answers[0]!.conclusion ?? '')
    : (await llm.generate({
        messages: conclusionMessages(request, structured),
        schema: conclusionAnswer,
        maxTokens: CONCLUSION_TOKENS,
      })).conclusion;
  return { structured, conclusion: conclusion.trim() || structured.map((s) => `${s.point}：${s.value}`).join('；') };
}
