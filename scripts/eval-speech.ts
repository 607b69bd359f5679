/**
 * Evaluates speech-process on the labelled cases in test/fixtures/speech through the real
 * HTTP route: per-point accuracy, exact-set accuracy, latency, and invariant violations.
 *
 *   npm run eval:speech -- --model ./models/qwen2.5-7b-instruct-q4_k_m.gguf [--cases file] [--limit N]
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import type { SpeechProcessRequest, SpeechProcessResponse } from '../src/contract/speech.js';
import { createLogger } from '../src/platform/logger.js';
import { fixturePath } from '../test/support/paths.js';
import { readyStatus } from '../src/engines/readiness.js';

export interface SpeechCase {
  id: string;
  lang: string;
  tags: string[];
  request: Omit<SpeechProcessRequest, 'request_id'>;
  expected: { covered: number[]; missing: number[] };
}

export interface CaseOutcome {
  id: string;
  status: number;
  latencyMs: number;
  pointsRight: number;
  points: number;
  exact: boolean;
  violations: string[];
}

/** What the response must satisfy whatever the model said; an empty list means all hold. */
export function speechInvariantViolations(request: Omit<SpeechProcessRequest, 'request_id'>, response: SpeechProcessResponse): string[] {
  const violations: string[] = [];
  const key = (p: { seq: number; name: string }) => `${p.seq}:${p.name}`;
  const requested = request.points.map(key);
  const returned = [...response.covered, ...response.missing].map(key);
  if ([...returned].sort().join('|') !== [...requested].sort().join('|')) violations.push('covered ∪ missing ≠ points');
  if (new Set(returned).size !== returned.length) violations.push('a point is both covered and missing');
  const position = (p: { seq: number; name: string }) => requested.indexOf(key(p));
  const inOrder = (list: typeof response.covered) => list.every((p, i) => i === 0 || position(list[i - 1]!) < position(p));
  if (!inOrder(response.covered) || !inOrder(response.missing)) violations.push('points out of request order');
  if (response.is_complete !== (response.missing.length === 0)) violations.push('is_complete disagrees with missing');
  if (response.missing.length > 0 && response.organized !== null) violations.push('organized while points are missing');
  if (response.missing.length === 0) {
    const structured = response.organized?.structured ?? [];
    if (structured.map((s) => s.seq).join(',') !== request.points.map((p) => p.seq).join(',')) violations.push('structured ≠ points');
    for (const entry of structured) {
      if (!request.speech_text.includes(entry.source_text)) violations.push(`source_text of ${entry.seq} is not verbatim`);
      if (!entry.value.trim()) violations.push(`empty value for ${entry.seq}`);
    }
    if (!response.organized?.conclusion.trim()) violations.push('empty conclusion');
  }
  return violations;
}

export async function evaluateCase(app: FastifyInstance, testCase: SpeechCase): Promise<CaseOutcome> {
  const started = performance.now();
  const response = await app.inject({ method: 'POST', url: '/ai/v1/speech-process', payload: { request_id: `eval-${testCase.id}`, ...testCase.request } });
  const latencyMs = performance.now() - started;
  const outcome: CaseOutcome = { id: testCase.id, status: response.statusCode, latencyMs, pointsRight: 0, points: testCase.request.points.length, exact: false, violations: [] };
  if (response.statusCode !== 200) return { ...outcome, violations: [`HTTP ${response.statusCode} ${response.json().error?.kind}`] };
  const body = response.json() as SpeechProcessResponse;
  const covered = new Set(body.covered.map((p) => p.seq));
  const expected = new Set(testCase.expected.covered);
  outcome.pointsRight = testCase.request.points.filter((p) => covered.has(p.seq) === expected.has(p.seq)).length;
  outcome.exact = outcome.pointsRight === outcome.points;
  outcome.violations = speechInvariantViolations(testCase.request, body);
  return outcome;
}

export async function loadSpeechCases(path = fixturePath('speech', 'cases.json')): Promise<SpeechCase[]> {
  return JSON.parse(await readFile(path, 'utf8')) as SpeechCase[];
}

/** Builds the gateway on a fresh data dir (no cache) with the given model and waits until it is ready. */
export async function startEvalGateway(modelPath: string, env: Record<string, string> = {}): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'eval-speech-'));
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn', ...env, LLM_MODEL: resolve(modelPath), DATA_DIR: dataDir, PORT: '0' });
  const app = await buildApp({ config, logger: createLogger(config.server.logLevel) });
  await readyStatus('llm', () => app.engineStatus('llm'), 10 * 60_000);
  return {
    app,
    close: async () => {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))] ?? 0;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { model: { type: 'string' }, cases: { type: 'string' }, limit: { type: 'string' } } });
  const model = values.model ?? process.env.LLM_MODEL;
  if (!model) throw new Error('give the model: npm run eval:speech -- --model <file.gguf>');
  const cases = (await loadSpeechCases(values.cases)).slice(0, values.limit ? Number(values.limit) : undefined);
  const gateway = await startEvalGateway(model);
  try {
    console.log(`model ${gateway.app.engineStatus('llm').model} on ${gateway.app.engineStatus('llm').device ?? '?'}; ${cases.length} cases\n`);
    const outcomes: CaseOutcome[] = [];
    for (const testCase of cases) {
      const outcome = await evaluateCase(gateway.app, testCase);
      outcomes.push(outcome);
      const mark = outcome.violations.length ? `VIOLATIONS: ${outcome.violations.join('; ')}` : outcome.exact ? 'exact' : '';
      console.log(`${testCase.id.padEnd(28)} ${String(outcome.pointsRight).padStart(2)}/${outcome.points} points  ${(outcome.latencyMs / 1000).toFixed(1).padStart(6)} s  ${mark}`);
    }
    const points = outcomes.reduce((sum, o) => sum + o.points, 0);
    const right = outcomes.reduce((sum, o) => sum + o.pointsRight, 0);
    const latencies = outcomes.map((o) => o.latencyMs);
    const violations = outcomes.filter((o) => o.violations.length > 0).length;
    console.log(`\nper-point accuracy  ${((100 * right) / points).toFixed(1)}% (${right}/${points})`);
    console.log(`exact-set accuracy  ${((100 * outcomes.filter((o) => o.exact).length) / outcomes.length).toFixed(1)}% (${outcomes.filter((o) => o.exact).length}/${outcomes.length})`);
    console.log(`latency             p50 ${(percentile(latencies, 0.5) / 1000).toFixed(2)} s, p90 ${(percentile(latencies, 0.9) / 1000).toFixed(2)} s, max ${(Math.max(...latencies) / 1000).toFixed(2)} s`);
    console.log(`invariant violations ${violations}`);
    process.exitCode = violations > 0 ? 1 : 0;
  } finally {
    await gateway.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
