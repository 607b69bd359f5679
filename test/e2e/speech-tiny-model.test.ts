import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTestModel } from '../../scripts/lib/models/make-test-model.js';
import { startLlmGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { evaluateCase, loadSpeechCases, type SpeechCase } from '../../scripts/lib/speech-eval.js';
import { TEST_MODELS_DIR } from '../../scripts/lib/paths.js';

/**
 * The real path end to end: node-llama-cpp loads a random-weight model in its child process,
 * generates under the JSON-schema grammar, and the operation grounds what it says. A random
 * model covers nothing, which is fine; what must hold is the contract, for every fixture.
 */
describe('speech-process on the tiny random-weight model, through HTTP', () => {
  let gateway: TestGateway;
  let cases: SpeechCase[];

  beforeAll(async () => {
    const model = await ensureTestModel({ modelsDir: TEST_MODELS_DIR });
    gateway = await startLlmGateway(model.path, { LLM_THREADS: '1', LLM_PARALLEL: '2' });
    cases = await loadSpeechCases();
  }, 120_000);
  afterAll(() => gateway?.close());

  it('answers every labelled case within the contract, with zero invariant violations', async () => {
    const outcomes = [];
    // Two at a time, as many as the model has sequences; more would only wait in the LLM queue.
    for (let i = 0; i < cases.length; i += 2) {
      outcomes.push(...(await Promise.all(cases.slice(i, i + 2).map((testCase) => evaluateCase(gateway.app, testCase)))));
    }
    for (const outcome of outcomes) {
      expect(outcome.status, outcome.id).toBe(200);
      expect(outcome.violations, outcome.id).toEqual([]);
    }
    expect(outcomes).toHaveLength(cases.length);
  }, 600_000);

  it('answers the same request from the cache the second time', async () => {
    const request = { request_id: 'cache-1', ...cases[0]!.request };
    const first = await gateway.app.inject({ method: 'POST', url: '/ai/v1/speech-process', payload: request });
    const second = await gateway.app.inject({ method: 'POST', url: '/ai/v1/speech-process', payload: { ...request, request_id: 'cache-2' } });
    expect(second.json()).toMatchObject({ from_cache: true, artifact_key: first.json().artifact_key, request_id: 'cache-2' });
    expect(first.json().processor_version.model).toMatch(/^test-tiny-qwen2\.gguf@[0-9a-f]{12}$/);
  }, 120_000);
});
