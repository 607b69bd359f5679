import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { OPERATIONS } from '../../src/contract/operations.js';
import type { LlamaCppEngine } from '../../src/engines/llm/index.js';
import { readyStatus, STARTING_RETRY_AFTER_SECONDS } from '../../src/engines/readiness.js';
import { createEngines } from '../../src/engines/registry.js';
import { ensureTestModel } from '../../scripts/lib/models/make-test-model.js';
import { TEST_MODELS_DIR } from '../../scripts/lib/paths.js';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';

const LOAD_WITHIN_MS = 60_000;

async function postSpeech(port: number): Promise<{ status: number; retryAfter: string | null; body: { error?: Record<string, unknown> } }> {
  const response = await fetch(`http://127.0.0.1:${port}${OPERATIONS.speechProcess.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(OPERATIONS.speechProcess.example.request),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as never };
}

/**
 * A platform that honours `retryable` must never drop a request because the engine was only
 * on its way up: through a real socket, with the real LLM process on the random-weight model.
 */
describe('an engine that is starting or restarting answers retryable, with Retry-After', () => {
  let gateway: TestGateway;
  let llm: LlamaCppEngine;
  let port: number;
  let dataDir: string;
  let letItLoad: () => void;

  beforeAll(async () => {
    const model = await ensureTestModel({ modelsDir: TEST_MODELS_DIR });
    dataDir = await mkdtemp(join(tmpdir(), 'engine-starting-'));
    const env = { LLM_MODEL: model.path, LLM_THREADS: '1', LLM_PARALLEL: '1', OCR_ENGINE: 'off', DATA_DIR: dataDir };
    const engines = createEngines(loadConfig(env));
    llm = engines.llm as LlamaCppEngine;
    // The LLM starts loading when the test lets it: `starting` until then, however fast this machine loads a model.
    const allowed = new Promise<void>((resolve) => (letItLoad = resolve));
    const start = llm.start.bind(llm);
    llm.start = () => allowed.then(start);
    gateway = await startGateway(env, { engines, listen: true, dataDir });
    port = (gateway.app.server.address() as { port: number }).port;
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers 503 engine_unavailable, retryable, with Retry-After, right after /healthz answers', async () => {
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect(llm.status().state).toBe('starting');
    const early = await postSpeech(port);
    expect(early.status).toBe(503);
    expect(early.body.error).toMatchObject({ kind: 'engine_unavailable', retryable: true, message: expect.stringContaining('starting') });
    expect(early.retryAfter).toBe(String(STARTING_RETRY_AFTER_SECONDS));

    letItLoad();
    await readyStatus('llm', () => llm.status(), LOAD_WITHIN_MS);
    expect((await postSpeech(port)).status).toBe(200);
    // /metrics says so too, with the LLM process's memory.
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain('gateway_engine_ready{engine="llm"} 1');
    const resident = /gateway_child_process_resident_memory_bytes\{command="node"\} (\d+)/.exec(metrics);
    expect(Number(resident?.[1])).toBeGreaterThan(20 * 1024 * 1024);
  }, 120_000);

  it('answers the same while it restarts after its process died, then serves again', async () => {
    const before = llm.pid()!;
    process.kill(before, 'SIGKILL');
    await expect.poll(() => llm.status().state, { timeout: 5_000 }).toBe('starting');
    const during = await postSpeech(port);
    expect(during.status).toBe(503);
    expect(during.body.error).toMatchObject({ kind: 'engine_unavailable', retryable: true, message: expect.stringContaining('restarting') });
    expect(during.retryAfter).toBe(String(STARTING_RETRY_AFTER_SECONDS));

    await readyStatus('llm', () => llm.status(), LOAD_WITHIN_MS);
    expect(llm.pid()).not.toBe(before);
    expect((await postSpeech(port)).status).toBe(200);
  }, 120_000);
});

describe('an engine that is not installed answers not retryable, without Retry-After', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway({ LLM_MODEL: 'no-such-model.gguf' }, { listen: true });
  });
  afterAll(() => gateway.close());

  it('503 engine_unavailable, retryable false', async () => {
    const answer = await postSpeech((gateway.app.server.address() as { port: number }).port);
    expect(answer.status).toBe(503);
    expect(answer.body.error).toMatchObject({ kind: 'engine_unavailable', retryable: false, message: expect.stringContaining('unavailable') });
    expect(answer.retryAfter).toBeNull();
  });
});
