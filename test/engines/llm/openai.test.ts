/**
 * The OpenAI-compatible engine against a small real HTTP server that answers as a model
 * server may: how each answer maps to an error kind, readiness, deadlines, aborts, and what
 * is sent. The same engine against a real llama-server: test/e2e/remote-llm.test.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OpenAiEngine, estimateTokens, type OpenAiEngineOptions } from '../../../src/engines/llm/index.js';
import { GatewayError } from '../../../src/errors.js';
import { startFileServer, type FileServer } from '../../../scripts/lib/file-server.js';

const MODEL = 'qwen2.5-7b-instruct';
const Answer = z.object({
  level: z.enum(['low', 'high']),
  note: z.string().nullable(),
  size: z.union([z.object({ mm: z.number() }), z.literal('unknown')]),
});
const request = { messages: [{ role: 'user' as const, content: '患者男，65岁，咳嗽两周。' }], schema: Answer, maxTokens: 64 };
const never = () => new AbortController().signal;

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

/** What the fake server does for the next chat completion, and what it was sent. */
let answerChat: Handler;
let tokenizer = false;
let served = [MODEL];
const received: Array<{ path: string; headers: IncomingMessage['headers']; body: string }> = [];
const closedEarly: string[] = [];

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
};
const completion = (content: string, finish_reason = 'stop') => ({
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason }],
  usage: { prompt_tokens: 20, completion_tokens: 9 },
});

describe('OpenAI-compatible LLM engine, against a small HTTP server', () => {
  let server: FileServer;
  const engines: OpenAiEngine[] = [];

  const engineFor = async (overrides: Partial<OpenAiEngineOptions> = {}) => {
    const engine = new OpenAiEngine({
      baseUrl: server.url('/v1'),
      model: MODEL,
      apiKey: 'sk-test',
      timeoutMs: 5_000,
      contextTokens: 4096,
      pollMs: { ready: 60_000, notReady: 50 },
      ...overrides,
    });
    engines.push(engine);
    await engine.start();
    return engine;
  };
  const failure = async (promise: Promise<unknown>): Promise<GatewayError> => {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  };

  beforeAll(async () => {
    server = await startFileServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body });
        if (req.url === '/v1/models') return json(res, 200, { object: 'list', data: served.map((id) => ({ id, object: 'model', max_model_len: 8192 })) });
        if (req.url === '/tokenize' && tokenizer) return json(res, 200, { tokens: [...JSON.parse(body).content].map((_, i) => i) });
        if (req.url === '/v1/chat/completions') return answerChat(req, body, res);
        json(res, 404, { error: { type: 'not_found_error', message: 'no such route' } });
      });
      res.on('close', () => {
        if (!res.writableFinished) closedEarly.push(req.url ?? '');
      });
    });
  });
  afterEach(async () => {
    await Promise.all(engines.splice(0).map((engine) => engine.close()));
    received.length = 0;
    tokenizer = false;
    served = [MODEL];
  });
  afterAll(() => server?.close());

  it('is ready when the server lists the model, sends the schema as a strict response_format and re-validates the answer', async () => {
    answerChat = (_req, _body, res) => json(res, 200, completion('{"level":"high","note":null,"size":{"mm":12}}'));
    const engine = await engineFor();
    expect(engine.status()).toMatchObject({ state: 'ready', model: `openai:${MODEL}@${new URL(server.url('/')).host}` });
    expect(engine.contextTokens()).toBe(8192); // vLLM's max_model_len

    await expect(engine.generateJson(request, never())).resolves.toEqual({ level: 'high', note: null, size: { mm: 12 } });
    const sent = received.find((r) => r.path === '/v1/chat/completions')!;
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    const body = JSON.parse(sent.body);
    expect(body).toMatchObject({ model: MODEL, max_tokens: 64, temperature: 0, messages: request.messages });
    expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'answer', strict: true } });
    // Strict mode: every property required, nothing else allowed, anyOf rather than oneOf.
    expect(body.response_format.json_schema.schema).toEqual({
      type: 'object',
      required: ['level', 'note', 'size'],
      additionalProperties: false,
      properties: {
        level: { enum: ['low', 'high'] },
        note: { type: ['string', 'null'] },
        size: {
          anyOf: [{ type: 'object', properties: { mm: { type: 'number' } }, required: ['mm'], additionalProperties: false }, { const: 'unknown' }],
        },
      },
    });
  });

  it('refuses an answer the schema rejects, or one cut off at max_tokens, as a retryable engine_failed', async () => {
    const engine = await engineFor();
    answerChat = (_req, _body, res) => json(res, 200, completion('{"level":"medium","note":null,"size":"unknown"}'));
    expect(await failure(engine.generateJson(request, never()))).toMatchObject({ kind: 'engine_failed', retryable: true, message: expect.stringContaining('level: invalid_value') });
    answerChat = (_req, _body, res) => json(res, 200, completion('{"level":"hi', 'length'));
    expect((await failure(engine.generateJson(request, never()))).message).toContain('cut off at the output limit (maxTokens 64)');
  });

  it("maps the server's refusals to honest kinds, never quoting its free text", async () => {
    const engine = await engineFor();
    const cases: Array<{ status: number; body: unknown; headers?: Record<string, string>; expected: Partial<GatewayError> }> = [
      { status: 429, body: { error: { type: 'rate_limit_error' } }, headers: { 'retry-after': '7' }, expected: { kind: 'overloaded', retryable: true, retryAfterSeconds: 7 } },
      { status: 503, body: { error: { type: 'unavailable_error', message: 'Loading model' } }, expected: { kind: 'engine_unavailable', retryable: true, retryAfterSeconds: 1 } },
      { status: 500, body: 'oops', expected: { kind: 'engine_failed', retryable: true } },
      { status: 504, body: {}, expected: { kind: 'timeout', retryable: true } },
      { status: 400, body: { error: { type: 'invalid_request_error', message: '患者男 quoted back' } }, expected: { kind: 'engine_failed', retryable: false } },
      { status: 400, body: { error: { type: 'exceed_context_size_error', message: '患者男' } }, expected: { kind: 'payload_too_large', retryable: false } },
    ];
    for (const { status, body, headers, expected } of cases) {
      answerChat = (_req, _body, res) => json(res, status, body, headers);
      const error = await failure(engine.generateJson(request, never()));
      expect(error, `HTTP ${status}`).toMatchObject(expected);
      expect(error.message).toContain(`answered ${status}`);
      expect(error.message).not.toContain('患者');
    }
  });

  it('stops at the deadline with `timeout`, and on abort closes the connection so the server stops generating', async () => {
    const engine = await engineFor();
    answerChat = () => undefined; // never answers
    const timedOut = await failure(engine.generateJson({ ...request, deadline: Date.now() + 200 }, never()));
    expect(timedOut).toMatchObject({ kind: 'timeout', retryable: true });

    const controller = new AbortController();
    const call = engine.generateJson(request, controller.signal);
    await waitFor(() => received.filter((r) => r.path === '/v1/chat/completions').length === 2);
    controller.abort(new GatewayError('cancelled', 'the client went away'));
    await expect(call).rejects.toMatchObject({ kind: 'cancelled' });
    await waitFor(() => closedEarly.filter((path) => path === '/v1/chat/completions').length === 2);
  });

  it('fails the calls in flight, retryably, when it is closed', async () => {
    const engine = await engineFor();
    answerChat = () => undefined; // never answers
    const call = failure(engine.generateJson(request, never()));
    await waitFor(() => received.some((r) => r.path === '/v1/chat/completions'));
    await engine.close();
    expect(await call).toMatchObject({ kind: 'engine_failed', retryable: true, message: 'the LLM engine is shutting down' });
    expect(engine.status().state).toBe('unavailable');
  });

  it('is not ready while the server does not serve the model, and says which it serves', async () => {
    served = ['llama3-8b', 'other'];
    const engine = await engineFor();
    expect(engine.status()).toMatchObject({ state: 'unavailable', reason: expect.stringContaining(`does not serve LLM_MODEL_NAME ${MODEL} (it serves: llama3-8b, other)`) });
    expect(await failure(engine.generateJson(request, never()))).toMatchObject({ kind: 'engine_unavailable' });
    served = [MODEL]; // the operator loads it: polled back to ready
    await waitFor(() => engine.status().state === 'ready');
  });

  it('is starting (retryable) while nothing answers at the address, with the reason', async () => {
    // Nothing can listen on port 0 (binding it picks another): a refused connection, always.
    const engine = await engineFor({ baseUrl: 'http://127.0.0.1:0/v1' });
    expect(engine.status()).toMatchObject({ state: 'starting', reason: expect.stringContaining('does not answer (ECONNREFUSED)') });
  });

  it("counts tokens with llama-server's /tokenize when offered, else estimates them on the high side", async () => {
    tokenizer = true;
    expect(await (await engineFor()).countTokens('abcdef', never())).toBe(6);
    tokenizer = false;
    expect(await (await engineFor()).countTokens('abcdef', never())).toBe(2);
    // One per CJK character or punctuation mark, one per three other characters.
    expect(estimateTokens('右肺上叶见肿块，T2N1M0')).toBe(8 + 2);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
