/**
 * The real LLM engine (child process, node-llama-cpp, CPU) on the tiny random-weight Qwen2
 * test model. Its output is gibberish, but the JSON-schema grammar keeps it valid JSON.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { LlamaCppEngine, type LlamaCppEngineOptions } from '../../../src/engines/llm/engine.js';
import type { ChatMessage } from '../../../src/engines/types.js';
import { GatewayError } from '../../../src/errors.js';
import { createLogger } from '../../../src/platform/logger.js';
import { ensureTestModel } from '../../../scripts/lib/models/make-test-model.js';
import { TEST_MODELS_DIR } from '../../../scripts/lib/paths.js';

/** The tokenizer cache is shared; the model file is this test's own, so nobody rewrites it mid-run. */
const MODELS_DIR = TEST_MODELS_DIR;
const MODEL_PATH = join(tmpdir(), 'mdt-ai-gateway-llm-engine-test', 'test-tiny-qwen2.gguf');
const CONTEXT = 2048;

/** Bounded output: a random model could otherwise write one string until maxTokens. */
const Answer = z.object({ level: z.enum(['low', 'high']), ok: z.boolean(), word: z.string().max(4) });
/** The shortest answer, for tests about scheduling rather than content. */
const Flag = z.object({ ok: z.boolean() });
/** A schema whose answer takes a long time to write (for abort, deadline and kill). */
const Long = z.object({ essay: z.string() });
/** The random model writes the essay until the budget runs out: seconds of generation. */
const LONG_TOKENS = 1900;

const messages: ChatMessage[] = [
  { role: 'system', content: 'You extract facts and answer in JSON.' },
  { role: 'user', content: '患者男，65岁，咳嗽两周。' },
];

const never = () => new AbortController().signal;

/**
 * One thread: generation and node-llama-cpp's sampling threads must not outnumber the cores.
 * With every core given to ggml, whose threads spin at barriers, any other load on a small
 * machine (a second sequence's sampling, a parallel test file) slows decoding 10-100×.
 */
function engineFor(modelPath: string, overrides: Partial<LlamaCppEngineOptions> = {}): LlamaCppEngine {
  return new LlamaCppEngine({
    settings: { modelPath, gpu: 'off', gpuLayers: 0, parallel: 2, contextSize: CONTEXT, threads: 1 },
    timeoutMs: 30_000,
    ...overrides,
  });
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('LLM engine (node-llama-cpp in a child process)', () => {
  let modelPath: string;
  let sha256: string;
  let engine: LlamaCppEngine;

  const logLines: string[] = [];
  const logged = (text: string) => logLines.some((line) => line.includes(text));
  const words = new Set<string>();
  const answer = async () => {
    const value = await engine.generateJson({ messages, schema: Answer, maxTokens: 48 }, never());
    expect(Answer.safeParse(value).success).toBe(true);
    if (value.word.trim().length > 1) words.add(value.word);
    return value;
  };

  const flag = async () => {
    const value = await engine.generateJson({ messages, schema: Flag, maxTokens: 16 }, never());
    expect(typeof value.ok).toBe('boolean');
    return value;
  };

  beforeAll(async () => {
    ({ path: modelPath, sha256 } = await ensureTestModel({ modelsDir: MODELS_DIR, outPath: MODEL_PATH }));
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    engine = engineFor(modelPath, { logger: createLogger('debug', destination) });
  }, 60_000);

  afterAll(async () => {
    await engine?.close();
  });

  afterAll(() => {
    // Prompts and outputs are patient data: no log line carries them.
    const log = logLines.join('');
    expect(log).toContain('LLM generation finished');
    for (const message of messages) expect(log).not.toContain(message.content);
    expect(log).not.toContain('患者');
    for (const word of words) expect(log).not.toContain(JSON.stringify(word).slice(1, -1));
  });

  it('loads: starting → ready, with the model version, the device and the context', async () => {
    const started = engine.start();
    expect(engine.status().state).toBe('starting');
    await started;
    expect(engine.status()).toEqual({
      state: 'ready',
      configured: true,
      model: `test-tiny-qwen2.gguf@${sha256.slice(0, 12)}`,
      // Nothing vouches for this model's hash here (no manifest entry, no SHA256SUMS).
      verified: false,
      device: 'cpu',
    });
    expect(engine.contextTokens()).toBeGreaterThanOrEqual(CONTEXT);
    expect(engine.pid()).toBeGreaterThan(0);
    // The model's folder is writable here, so the hash is remembered next to the model.
    expect(JSON.parse(readFileSync(`${modelPath}.sha256`, 'utf8'))).toMatchObject({ sha256 });
  });

  it('answers with an object the schema accepts', async () => {
    const value = await answer();
    expect(Answer.parse(value)).toEqual(value);
  });

  it('serves as many calls at once as it has sequences, and queues the rest', async () => {
    expect(await Promise.all([1, 2].map(flag))).toHaveLength(2);
    expect(await Promise.all([1, 2, 3, 4].map(flag))).toHaveLength(4); // two wait in the sequence pool
  });

  it('counts tokens with the model tokenizer', async () => {
    const tokens = await engine.countTokens('你好，世界', never());
    expect(tokens).toBeGreaterThan(0);
    expect(tokens).toBeLessThan(10);
  });

  it('fails cleanly when maxTokens cuts the JSON short', async () => {
    const error = await rejection(engine.generateJson({ messages, schema: Long, maxTokens: 5 }, never()));
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ kind: 'engine_failed', retryable: true });
    expect((error as Error).message).toMatch(/maxTokens 5/);
  });

  it('refuses a prompt that does not fit the context, before generating', async () => {
    const long: ChatMessage[] = [{ role: 'user', content: '咳嗽'.repeat(CONTEXT) }];
    const error = await rejection(engine.generateJson({ messages: long, schema: Answer, maxTokens: 48 }, never()));
    expect(error).toMatchObject({ kind: 'payload_too_large' });
    // The prompt alone fits, but not with the output budget.
    const budget = await rejection(engine.generateJson({ messages, schema: Answer, maxTokens: CONTEXT }, never()));
    expect(budget).toMatchObject({ kind: 'payload_too_large' });
  });

  it('stops a generation when the caller aborts, and frees its sequence', async () => {
    const controller = new AbortController();
    const outcome = rejection(engine.generateJson({ messages, schema: Long, maxTokens: LONG_TOKENS }, controller.signal));
    await new Promise((r) => setTimeout(r, 200));
    const reason = new Error('client went away');
    const abortedAt = Date.now();
    controller.abort(reason);
    expect(await outcome).toBe(reason);
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    // The child stops after its next token (not after the long essay) and says so.
    await waitFor(() => logged('the LLM process stopped an abandoned call'), 2_000);
    expect(Date.now() - abortedAt).toBeLessThan(2_000);
    // Both sequences are free again.
    expect(await Promise.all([1, 2].map(flag))).toHaveLength(2);
  });

  it('times out at the deadline', async () => {
    const past = await rejection(
      engine.generateJson({ messages, schema: Answer, maxTokens: 48, deadline: Date.now() - 1 }, never()),
    );
    expect(past).toMatchObject({ kind: 'timeout' });
    const startedAt = Date.now();
    const soon = await rejection(
      engine.generateJson({ messages, schema: Long, maxTokens: LONG_TOKENS, deadline: Date.now() + 300 }, never()),
    );
    expect(soon).toMatchObject({ kind: 'timeout', retryable: true });
    expect(Date.now() - startedAt).toBeLessThan(1_500);
  });

  it('survives the LLM process being killed mid-call: fails the call, reports, restarts', async () => {
    const before = engine.pid()!;
    const outcome = rejection(engine.generateJson({ messages, schema: Long, maxTokens: LONG_TOKENS }, never()));
    await new Promise((r) => setTimeout(r, 300));
    process.kill(before, 'SIGKILL');
    const error = await outcome;
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ kind: 'engine_failed', retryable: true });
    // On its way back: a call meanwhile is told to retry, not to give up.
    expect(engine.status().state).toBe('starting');
    expect(engine.status().reason).toMatch(/the LLM process exited \(signal SIGKILL\); restarting/);
    await expect(flag()).rejects.toMatchObject({ kind: 'engine_unavailable', retryable: true, retryAfterSeconds: 5 });

    await waitFor(() => engine.status().state === 'ready', 20_000);
    expect(engine.pid()).not.toBe(before);
    await flag();
  }, 30_000);

  it('close() stops the LLM process and does not restart it', async () => {
    const pid = engine.pid()!;
    // On a clock of the test's own: a restart would be a timer, which runAllTimers() fires at once.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await engine.close();
      expect(() => process.kill(pid, 0)).toThrow(); // gone
      expect(engine.pid()).toBeUndefined();
      expect(engine.status().state).toBe('unavailable');
      expect(vi.getTimerCount(), 'timers left after close()').toBe(0);
      vi.runAllTimers();
      expect(engine.pid()).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
    await expect(flag()).rejects.toMatchObject({ kind: 'engine_unavailable' });
  });
});

describe('LLM engine without a usable model', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llm-engine-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports a missing model file as unavailable', async () => {
    const engine = engineFor(join(dir, 'missing.gguf'));
    try {
      await engine.start();
      expect(engine.status()).toMatchObject({ state: 'unavailable', reason: expect.stringMatching(/model file not found/) });
      await expect(engine.countTokens('x', never())).rejects.toMatchObject({ kind: 'engine_unavailable', retryable: false });
    } finally {
      await engine.close();
    }
  });

  it('reports a corrupt model file as failed and retries with a growing backoff', async () => {
    const corrupt = join(dir, 'x.gguf');
    writeFileSync(corrupt, Buffer.alloc(64 * 1024, 'no GGUF header, no tensors '));
    const engine = engineFor(corrupt, { backoff: { initialMs: 100 } });
    try {
      await engine.start();
      expect(engine.status()).toMatchObject({
        state: 'failed',
        reason: expect.stringMatching(/^cannot load the model x\.gguf: .*; retrying in 0\.1 s$/),
      });
      const firstPid = engine.pid();
      // The next attempt waits longer (0.1 s, 0.2 s, 0.4 s …): no fast restart loop.
      await waitFor(() => /retrying in 0\.2 s$/.test(engine.status().reason ?? ''), 15_000);
      expect(engine.status().state).toBe('failed');
      expect(engine.pid()).not.toBe(firstPid);
    } finally {
      await engine.close();
    }
    expect(engine.pid()).toBeUndefined();
  }, 30_000);
});
