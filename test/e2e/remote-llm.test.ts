/**
 * LLM_BACKEND=openai end to end: a real llama-server (built from the llama.cpp source that
 * node-llama-cpp ships, `npm run setup:llama-server`) serves the random-weight test model on a
 * loopback port, and the gateway answers speech-process and AI-3 through it over its public HTTP
 * interface. A random model covers nothing, which is fine: what must hold is the contract.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { readyStatus } from '../../src/engines/readiness.js';
import { adviceCallback, CALLBACK_PATH, type AdviceCallback } from '../../src/contract/advice.js';
import { startFileServer, type FileServer } from '../../scripts/lib/file-server.js';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { VALID_BODIES } from '../support/valid-bodies.js';
import { llamaServerMissing, startLlamaServer, type LlamaServer } from '../../scripts/lib/llama-server.js';
import { ensureTestModel } from '../../scripts/lib/models/make-test-model.js';
import { TEST_MODELS_DIR } from '../../scripts/lib/paths.js';
import { evaluateCase, loadSpeechCases, type SpeechCase } from '../../scripts/lib/speech-eval.js';
import { describeWithTools } from '../support/tools.js';
import { webhookSecretFor } from '../../scripts/lib/secrets.js';

const ALIAS = 'tiny-qwen';
/** Enough cases for Chinese and English, complete and incomplete speech, without adding much time. */
const CASES = 4;

const remoteEnv = (server: LlamaServer, modelName = server.alias) => ({
  LOG_LEVEL: 'warn',
  LLM_BACKEND: 'openai',
  LLM_BASE_URL: server.baseUrl,
  LLM_MODEL_NAME: modelName,
  LLM_TIMEOUT_MS: '60000',
});

describeWithTools('LLM_BACKEND=openai on a real llama-server, through HTTP', await llamaServerMissing(), () => {
  let server: LlamaServer;
  let gateway: TestGateway;
  let cases: SpeechCase[];
  /** The platform's callback endpoint: every AI-3 callback it received. */
  let platform: FileServer;
  const callbacks: AdviceCallback[] = [];

  beforeAll(async () => {
    const model = await ensureTestModel({ modelsDir: TEST_MODELS_DIR });
    server = await startLlamaServer({ model: model.path, alias: ALIAS, threads: 1, parallel: 2, contextSize: 2048 });
    platform = await startFileServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        if (req.url === CALLBACK_PATH) callbacks.push(adviceCallback.parse(JSON.parse(body)));
        res.writeHead(req.url === CALLBACK_PATH ? 200 : 404).end();
      });
    });
    gateway = await startGateway({ ...remoteEnv(server), CALLBACK_BASE_URL: platform.url(''), CALLBACK_SECRET: webhookSecretFor('remote-llm') });
    await readyStatus('llm', () => gateway.app.engineStatus('llm'), 30_000);
    cases = await loadSpeechCases();
  }, 120_000);
  afterAll(async () => {
    await gateway?.close();
    await platform?.close();
    await server?.stop();
  });

  it('answers labelled cases within the contract, naming the remote model in processor_version', async () => {
    const picked = [...cases.filter((c) => c.tags.includes('complete')).slice(0, CASES / 2), ...cases.filter((c) => !c.tags.includes('complete')).slice(0, CASES / 2)];
    const outcomes = await Promise.all(picked.map((testCase) => evaluateCase(gateway.app, testCase)));
    for (const outcome of outcomes) {
      expect(outcome.status, outcome.id).toBe(200);
      expect(outcome.violations, outcome.id).toEqual([]);
    }

    const request = { request_id: 'remote-1', ...picked[0]!.request };
    const answer = (await gateway.app.inject({ method: 'POST', url: '/ai/v1/speech-process', payload: request })).json();
    expect(answer.processor_version.model).toBe(`openai:${ALIAS}@${new URL(server.baseUrl).host}`);
    const ready = await gateway.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().engines.llm).toMatchObject({ state: 'ready', model: answer.processor_version.model, device: `remote: ${new URL(server.baseUrl).host}` });
  }, 300_000);

  it('drafts AI-3 advice through the server and calls back with the remote model named', async () => {
    const accepted = await gateway.app.inject({ method: 'POST', url: '/ai/v1/report-advice-draft', payload: VALID_BODIES['/ai/v1/report-advice-draft'] });
    expect(accepted.statusCode).toBe(202);
    const until = Date.now() + 60_000;
    while (callbacks.length === 0 && Date.now() < until) await sleep(50);
    // A random model may write a draft or fail the checks: either way an honest callback.
    expect(callbacks).toEqual([
      expect.objectContaining({ request_id: 'req-2', processor_version: expect.objectContaining({ model: `openai:${ALIAS}@${new URL(server.baseUrl).host}` }) }),
    ]);
  }, 90_000);

  it('is not ready, and refuses speech-process, while the server does not serve LLM_MODEL_NAME', async () => {
    const misnamed = await startGateway(remoteEnv(server, 'qwen2.5-72b-instruct'));
    try {
      const readiness = await waitForReadiness(misnamed, (llm) => llm.state !== 'starting');
      expect(readiness.statusCode).toBe(503);
      expect(readiness.json().engines.llm).toMatchObject({
        state: 'unavailable',
        reason: expect.stringContaining(`does not serve LLM_MODEL_NAME qwen2.5-72b-instruct (it serves: ${ALIAS})`),
      });
      const refused = await misnamed.app.inject({ method: 'POST', url: '/ai/v1/speech-process', payload: { request_id: 'misnamed', ...cases[0]!.request } });
      expect(refused.statusCode).toBe(503);
      expect(refused.json().error.kind).toBe('engine_unavailable');
    } finally {
      await misnamed.close();
    }
  }, 60_000);

  it('answers a retryable error once the server is killed, and /readyz says why', async () => {
    await server.stop('SIGKILL');
    const request = { request_id: 'after-kill', ...cases[0]!.request, speech_text: `${cases[0]!.request.speech_text}（补充）` };
    const failed = await gateway.app.inject({ method: 'POST', url: '/ai/v1/speech-process', payload: request });
    expect(failed.statusCode).toBe(500);
    expect(failed.json().error).toMatchObject({ kind: 'engine_failed', retryable: true, message: expect.stringContaining('ECONNREFUSED') });
    const readiness = await waitForReadiness(gateway, (llm) => llm.state !== 'ready');
    expect(readiness.statusCode).toBe(503);
    expect(readiness.json().engines.llm).toMatchObject({ state: 'starting', reason: expect.stringContaining('does not answer (ECONNREFUSED)') });
    // Until it answers again, calls are refused as a passing state: retry later.
    const refused = await gateway.app.inject({ method: 'POST', url: '/ai/v1/speech-process', payload: { ...request, request_id: 'while-down' } });
    expect(refused.statusCode).toBe(503);
    expect(refused.json().error).toMatchObject({ kind: 'engine_unavailable', retryable: true });
    expect(refused.headers['retry-after']).toBeDefined();
  }, 60_000);
});

/** GET /readyz until the LLM engine's report satisfies `done` (the engine checks in the background). */
async function waitForReadiness(target: TestGateway, done: (llm: { state: string }) => boolean) {
  const until = Date.now() + 20_000;
  for (;;) {
    const response = await target.app.inject({ method: 'GET', url: '/readyz' });
    if (done(response.json().engines.llm) || Date.now() > until) return response;
    await sleep(50);
  }
}
