/**
 * Judging speech-process on the labelled cases in test/fixtures/speech: the contract's
 * invariants, per-point and exact-set accuracy. Used by eval:speech and the tiny-model test.
 */
import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { SpeechProcessRequest, SpeechProcessResponse } from '../../src/contract/speech.js';
import { fixturePath } from './paths.js';

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
