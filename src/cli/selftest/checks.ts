/**
 * One check per operation: the operation called twice on a small sample (the first call and a
 * warm one, timed), the answer held to the contract's schema and to the invariants the contract
 * promises whatever the model says. Model quality is not judged: a random-weight test model
 * passes, a broken install does not.
 */
import type { z } from 'zod';
import { adviceJobStatus } from '../../contract/advice.js';
import type { EngineName } from '../../contract/engines.js';
import { OPERATIONS, type OperationContract, type OperationId } from '../../contract/operations.js';
import { describeError, type Answer, type GatewayClient } from './gateway-client.js';

export interface Samples {
  /** A synthetic printed report page (PNG) with a patient's name and data to de-identify. */
  page: Buffer;
  /** A few seconds of Mandarin speech (16 kHz WAV). */
  recording: Buffer;
}

/** Where AI-3's callback arrives: the self-test's own receiver, and what it stored for a job. */
export interface CallbackTarget {
  report(requestId: string): Promise<{ ai_status: string | null; ai_advice_ref: string | null; ai_error_kind: string | null } | undefined>;
}

export interface CheckResult {
  operation: OperationId;
  engine: EngineName;
  outcome: 'ok' | 'failed' | 'skipped';
  /** Milliseconds of the first call and of a warm one (AI-3: submit to callback, once). */
  firstMs?: number;
  warmMs?: number;
  detail: string;
}

export interface CheckContext {
  client: GatewayClient;
  samples: Samples;
  /** Absent when the gateway's callbacks cannot reach the self-test (the reason is given). */
  callbacks: CallbackTarget | { skipped: string };
  /** Longest wait for an AI-3 callback. */
  callbackTimeoutMs: number;
  /** A tag for this run's request ids, so runs never meet in the cache or the job table. */
  runId: string;
  /**
   * Judge the contract and the delivery path only: an AI-3 draft the model's answer could not
   * make (engine_failed, delivered as a signed `failed` callback) passes. For random-weight test
   * models, whose answers are noise; a real model must draft the sample.
   */
  contractOnly: boolean;
}

class CheckFailed extends Error {}

function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new CheckFailed(message);
}

/** The answer's body as the contract's success schema reads it; a failure names status and error. */
function accepted<S extends z.ZodType>(operation: OperationContract<z.ZodType, S>, answer: Answer): z.output<S> {
  expect(answer.status === operation.successStatus, `HTTP ${answer.status}${describeError(answer.json)}`);
  const parsed = operation.response.safeParse(answer.json);
  expect(parsed.success, `the answer breaks the contract: ${parsed.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

async function speechProcess(context: CheckContext): Promise<Omit<CheckResult, 'operation' | 'engine'>> {
  const operation = OPERATIONS.speechProcess;
  const example = operation.example.request;
  const request = (n: number) => ({ ...example, request_id: `selftest-${context.runId}-speech-${n}`, speech_text: `${example.speech_text}（${context.runId}-${n}）` });
  const answers: Answer[] = [];
  for (const n of [1, 2]) {
    const answer = await context.client.request('POST', operation.path, request(n));
    answers.push(answer);
    const body = accepted(operation, answer);
    expect(body.request_id === request(n).request_id, 'request_id is not the one sent');
    const seqs = (points: Array<{ seq: number }>) => points.map((p) => p.seq).sort((a, b) => a - b);
    expect(
      JSON.stringify(seqs([...body.covered, ...body.missing])) === JSON.stringify(seqs(example.points)),
      'covered and missing together are not exactly the requested points',
    );
    expect(body.is_complete === (body.missing.length === 0), 'is_complete disagrees with missing');
    expect((body.organized === null) === body.missing.length > 0, 'organized must be null exactly when a point is missing');
    expect(!body.from_cache, 'a new speech was answered from the cache');
  }
  const repeat = accepted(operation, await context.client.request('POST', operation.path, request(2)));
  const second = accepted(operation, answers[1]!);
  expect(repeat.from_cache && repeat.artifact_key === second.artifact_key, 'the same request again was not answered from the cache');
  return { outcome: 'ok', firstMs: answers[0]!.ms, warmMs: answers[1]!.ms, detail: `model ${second.processor_version.model}` };
}

async function reportAdviceDraft(context: CheckContext): Promise<Omit<CheckResult, 'operation' | 'engine'>> {
  if ('skipped' in context.callbacks) return { outcome: 'skipped', detail: context.callbacks.skipped };
  const operation = OPERATIONS.reportAdviceDraft;
  const requestId = `selftest-${context.runId}-advice`;
  const started = performance.now();
  const body = accepted(operation, await context.client.request('POST', operation.path, { ...operation.example.request, request_id: requestId }));
  expect(body.request_id === requestId && body.accepted, 'the job was not accepted under its request_id');
  const deadline = Date.now() + context.callbackTimeoutMs;
  let report = await context.callbacks.report(requestId);
  while (!report && Date.now() < deadline) {
    await new Promise((wake) => setTimeout(wake, 250));
    report = await context.callbacks.report(requestId);
  }
  const elapsed = performance.now() - started;
  const job = await context.client.request('GET', `${operation.path}/${encodeURIComponent(requestId)}`);
  const status = adviceJobStatus.safeParse(job.json);
  const state = status.success ? `job ${status.data.state}${status.data.error ? ` (${status.data.error.kind}: ${status.data.error.message})` : ''}` : `job status HTTP ${job.status}`;
  expect(report !== undefined, `no callback within ${context.callbackTimeoutMs / 1000} s (${state}); is CALLBACK_BASE_URL the self-test's receiver?`);
  expect(status.success && status.data.state === 'delivered', `the gateway's view: ${state}`);
  if (report.ai_status === 'failed' && report.ai_error_kind === 'engine_failed' && context.contractOnly) {
    return { outcome: 'ok', firstMs: elapsed, detail: `signed failed callback delivered (${state}; accepted with --contract-only)` };
  }
  expect(report.ai_status === 'succeeded', `the callback reports ${report.ai_status} (${state})`);
  expect((report.ai_advice_ref ?? '').trim().length > 0, 'the delivered draft is empty');
  return { outcome: 'ok', firstMs: elapsed, detail: `signed callback delivered, ${report.ai_advice_ref!.length} characters` };
}

/** One page as a file of the request, uploaded to the gateway; the upload is removed afterwards. */
async function withPage<T>(context: CheckContext, use: (file: { upload_file_id: number; bucket: string; object_key: string; file_name: string; file_url: string }) => Promise<T>): Promise<T> {
  const upload = await context.client.upload(context.samples.page);
  try {
    return await use({ upload_file_id: 1, bucket: 'selftest', object_key: 'selftest/page.png', file_name: 'page.png', file_url: upload.fileUrl });
  } finally {
    await context.client.deleteUpload(upload.token);
  }
}

async function caseOcr(context: CheckContext): Promise<Omit<CheckResult, 'operation' | 'engine'>> {
  const operation = OPERATIONS.caseOcr;
  return withPage(context, async (file) => {
    const answers: Answer[] = [];
    let characters = 0;
    for (const n of [1, 2]) {
      const answer = await context.client.request('POST', operation.path, { request_id: `selftest-${context.runId}-ocr-${n}`, files: [file] });
      answers.push(answer);
      const body = accepted(operation, answer);
      expect(body.ocr_results.length === 1 && body.ocr_results[0]!.upload_file_id === file.upload_file_id, 'ocr_results do not answer the one file sent');
      characters = body.ocr_results[0]!.ocr_result.trim().length;
      expect(characters > 0, 'no text was read from a printed page');
    }
    return { outcome: 'ok', firstMs: answers[0]!.ms, warmMs: answers[1]!.ms, detail: `${characters} characters read` };
  });
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

async function caseFileProcess(context: CheckContext): Promise<Omit<CheckResult, 'operation' | 'engine'>> {
  const operation = OPERATIONS.caseFileProcess;
  return withPage(context, async (file) => {
    const answers: Answer[] = [];
    let detail = '';
    for (const n of [1, 2]) {
      const answer = await context.client.request('POST', operation.path, { request_id: `selftest-${context.runId}-deid-${n}`, files: [file] });
      answers.push(answer);
      const body = accepted(operation, answer);
      const result = body.results[0];
      expect(body.results.length === 1 && result?.upload_file_id === file.upload_file_id, 'results do not answer the one file sent');
      expect(result.pages === 1 && result.page_redactions.length === 1, 'a one-page image did not come back as one page');
      const produced = await context.client.download(result.desensitized_url);
      expect(produced.status === 200, `the de-identified file's link answered HTTP ${produced.status}`);
      expect(produced.bytes.subarray(0, 8).equals(PNG_SIGNATURE), 'the de-identified file of a PNG is not a PNG');
      expect(!produced.bytes.equals(context.samples.page), 'the de-identified file is the original, byte for byte');
      detail = `${result.category}, ${result.redactions} boxes painted`;
    }
    return { outcome: 'ok', firstMs: answers[0]!.ms, warmMs: answers[1]!.ms, detail };
  });
}

async function asr(context: CheckContext): Promise<Omit<CheckResult, 'operation' | 'engine'>> {
  const operation = OPERATIONS.asr;
  const upload = await context.client.upload(context.samples.recording);
  try {
    const answers: Answer[] = [];
    let segments = 0;
    for (const n of [1, 2]) {
      const answer = await context.client.request('POST', operation.path, { request_id: `selftest-${context.runId}-asr-${n}`, voice_url: upload.fileUrl });
      answers.push(answer);
      const body = accepted(operation, answer);
      const starts = body.segments.map((s) => s.start_ms);
      expect(starts.every((start, i) => i === 0 || start >= starts[i - 1]!), 'segments are not in time order');
      segments = body.segments.length;
    }
    return { outcome: 'ok', firstMs: answers[0]!.ms, warmMs: answers[1]!.ms, detail: `${segments} segments` };
  } finally {
    await context.client.deleteUpload(upload.token);
  }
}

const CHECKS: Array<{ operation: OperationId; engine: EngineName; run: (context: CheckContext) => Promise<Omit<CheckResult, 'operation' | 'engine'>> }> = [
  { operation: 'speech-process', engine: 'llm', run: speechProcess },
  { operation: 'report-advice-draft', engine: 'llm', run: reportAdviceDraft },
  { operation: 'case-ocr', engine: 'ocr', run: caseOcr },
  { operation: 'case-file-process', engine: 'ocr', run: caseFileProcess },
  { operation: 'asr', engine: 'asr', run: asr },
];

/** Every operation in turn (one at a time, so the timings are each engine's own). */
export async function runChecks(context: CheckContext): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of CHECKS) {
    try {
      results.push({ operation: check.operation, engine: check.engine, ...(await check.run(context)) });
    } catch (error) {
      const detail = error instanceof CheckFailed ? error.message : `${error instanceof Error ? error.message : String(error)}`;
      results.push({ operation: check.operation, engine: check.engine, outcome: 'failed', detail });
    }
  }
  return results;
}
