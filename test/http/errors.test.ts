import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, postJson, startGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { VALID_BODIES } from '../support/valid-bodies.js';
import { FakeAsrEngine, enginesWithAsr } from '../support/test-engines.js';
import { startFileServer, type FileServer } from '../../scripts/lib/file-server.js';
import { PNG_BYTES, WAV_BYTES } from '../support/media-bytes.js';

const ASR = '/ai/v1/asr';
let files: FileServer;

beforeAll(async () => {
  files = await startFileServer((request, response) => {
    if (request.url === '/a.wav') response.end(WAV_BYTES);
    else if (request.url === '/scan.png') response.end(PNG_BYTES);
    else if (request.url === '/to-metadata') response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    else if (request.url === '/flaky') response.writeHead(503).end();
    else response.writeHead(404).end();
  });
});
afterAll(() => files.close());

describe('framework-level failures answer the error body', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway({ BODY_LIMIT_BYTES: '2048' });
  });
  afterAll(() => gateway.close());

  const raw = (payload: string, contentType = 'application/json') =>
    gateway.app.inject({ method: 'POST', url: ASR, payload, headers: { 'content-type': contentType } });

  it('malformed JSON is a 400 invalid_request that does not quote the body', async () => {
    const response = await raw('{"request_id": "SENTINEL-患者王五", ');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { kind: 'invalid_request', message: 'request body is not valid JSON', retryable: false } });
  });

  it('a prototype-poisoning body is refused as a 400', async () => {
    const response = await raw('{"request_id":"r","voice_url":"http://x/a","__proto__":{"polluted":true}}');
    expect(response.statusCode).toBe(400);
    expect(response.json().error.kind).toBe('invalid_request');
  });

  it('an empty JSON body is a 400', async () => {
    expect((await raw('')).statusCode).toBe(400);
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])(
    'Content-Type %s is a 415 unsupported_media',
    async (type) => {
      const response = await raw('request_id=1', type);
      expect(response.statusCode).toBe(415);
      expect(response.json().error).toMatchObject({ kind: 'unsupported_media', retryable: false });
    },
  );

  it('a body over BODY_LIMIT_BYTES is a 413 payload_too_large', async () => {
    const response = await raw(JSON.stringify({ request_id: 'r', voice_url: `http://x/${'a'.repeat(3000)}` }));
    expect(response.statusCode).toBe(413);
    expect(response.json().error).toMatchObject({ kind: 'payload_too_large', retryable: false });
  });

  it('an unknown route is a 404 not_found in the same shape', async () => {
    for (const [method, url] of [['GET', '/nope'], ['POST', '/ai/v1/unknown'], ['GET', '/ai/v1/asr']] as const) {
      const response = await gateway.app.inject({ method, url });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: { kind: 'not_found', message: expect.any(String), retryable: false } });
    }
  });
});

describe('engine and fetch failures through the ASR operation', () => {
  let gateway: TestGateway;
  let engine: FakeAsrEngine;
  beforeAll(async () => {
    engine = new FakeAsrEngine();
    gateway = await startGateway({ FETCH_ALLOW_LOOPBACK: 'true' }, { engines: enginesWithAsr(engine) });
  });
  afterAll(() => gateway.close());

  const transcribe = (voice_url: string) =>
    gateway.app.inject({ method: 'POST', url: ASR, payload: { request_id: 'r-1', voice_url } });

  it('answers the transcript with segments that keep the invariants', async () => {
    const pending = transcribe(files.url('/a.wav'));
    const [call] = await engine.waitForCalls(engine.calls.length + 1).then((calls) => calls.slice(-1));
    expect(call!.audio.mediaType).toBe('audio/wav');
    call!.finish({ text: '', segments: [{ startMs: -20, endMs: -30, text: ' 你好 ' }, { startMs: 900.4, endMs: 1500.6, text: '世界' }] });
    const response = await pending;
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      text: '你好世界',
      segments: [
        { start_ms: 0, end_ms: 0, text: '你好' },
        { start_ms: 900, end_ms: 1501, text: '世界' },
      ],
    });
  });

  it('an engine crash is a 500 internal that hides the message and the stack', async () => {
    const pending = transcribe(files.url('/a.wav'));
    const calls = await engine.waitForCalls(engine.calls.length + 1);
    calls.at(-1)!.fail(new Error('SENTINEL-患者王五 segfault in ggml'));
    const response = await pending;
    expect(response.statusCode).toBe(500);
    expect(response.json().error).toMatchObject({ kind: 'internal', retryable: true });
    expect(response.body).not.toContain('SENTINEL');
    expect(response.body).not.toMatch(/\bat .+:\d+/);
  });

  it.each([
    ['a redirect to the metadata address', '/to-metadata'],
    ['a 404 at the source', '/missing.wav'],
    ['a 503 at the source', '/flaky'],
  ] as const)('%s is a 502 fetch_failed that does not say which', async (_name, path) => {
    const response = await transcribe(files.url(path));
    expect(response.statusCode).toBe(502);
    expect(response.json()).toEqual({
      error: { kind: 'fetch_failed', message: "voice_url: could not fetch the URL; the gateway's log says why", retryable: true },
    });
  });

  it('an image served where audio is expected is a 415 that says so, not to be retried', async () => {
    const response = await transcribe(files.url('/scan.png'));
    expect(response.statusCode).toBe(415);
    expect(response.json()).toEqual({
      error: { kind: 'unsupported_media', message: 'voice_url: got image/png, expected audio', retryable: false },
    });
  });

  it.each(['file:///etc/passwd', 'http://169.254.169.254/latest/meta-data', 'ftp://127.0.0.1/a.wav'])(
    '%s is refused as forbidden_url',
    async (url) => {
      const response = await transcribe(url);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.kind).toBe('forbidden_url');
    },
  );
});

describe('the limiter in front of the engine', () => {
  let gateway: TestGateway;
  let engine: FakeAsrEngine;
  beforeAll(async () => {
    engine = new FakeAsrEngine();
    gateway = await startGateway(
      { FETCH_ALLOW_LOOPBACK: 'true', ASR_MAX_RUNNING: '1', ASR_MAX_QUEUED: '1', ASR_QUEUE_TIMEOUT_MS: '400' },
      { engines: enginesWithAsr(engine), listen: true },
    );
  });
  afterAll(() => gateway.close());
  afterEach(() => {
    for (const call of engine.calls) call.finish({ text: 'done', segments: [] });
  });

  const send = (signal?: AbortSignal) =>
    postJson(`${baseUrl(gateway.app)}${ASR}`, { ...VALID_BODIES[ASR], voice_url: files.url('/a.wav') }, signal);
  const metric = async (name: string) => {
    const text = (await gateway.app.inject({ url: '/metrics' })).body;
    const line = text.split('\n').find((l) => l.startsWith(`${name}{engine="asr"`));
    return Number(line?.split(' ').at(-1));
  };

  it('runs one, queues one, and refuses the third with 503 overloaded and Retry-After', async () => {
    const before = engine.calls.length;
    const first = send();
    await engine.waitForCalls(before + 1);
    const second = send();
    await expect.poll(() => metric('gateway_engine_queue_depth')).toBe(1);
    expect(await metric('gateway_engine_running')).toBe(1);

    const third = await send();
    expect(third.status).toBe(503);
    expect(Number(third.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(third.body).error).toMatchObject({ kind: 'overloaded', retryable: true });

    engine.calls[before]!.finish({ text: 'one', segments: [] });
    expect((await first).status).toBe(200);
    await engine.waitForCalls(before + 2);
    engine.calls[before + 1]!.finish({ text: 'two', segments: [] });
    expect(JSON.parse((await second).body)).toEqual({ text: 'two', segments: [] });
  });

  it('a task that waits past the queue deadline is a 504 timeout', async () => {
    const before = engine.calls.length;
    const holder = send();
    await engine.waitForCalls(before + 1);
    const waiting = await send();
    expect(waiting.status).toBe(504);
    expect(JSON.parse(waiting.body).error).toMatchObject({ kind: 'timeout', retryable: true });
    engine.calls[before]!.finish({ text: 'x', segments: [] });
    await holder;
  });

  it('a client that disconnects while queued is dropped; one that disconnects while running gets the abort signal', async () => {
    const before = engine.calls.length;
    const runningClient = new AbortController();
    const running = send(runningClient.signal).catch(() => 'aborted');
    await engine.waitForCalls(before + 1);
    const queuedClient = new AbortController();
    const queued = send(queuedClient.signal).catch(() => 'aborted');
    await expect.poll(() => metric('gateway_engine_queue_depth')).toBe(1);

    queuedClient.abort();
    await expect.poll(() => metric('gateway_engine_queue_depth')).toBe(0);
    runningClient.abort();
    await expect.poll(() => engine.calls[before]!.signal.aborted).toBe(true);
    expect(await running).toBe('aborted');
    expect(await queued).toBe('aborted');
    expect(engine.calls.length).toBe(before + 1);
    await expect.poll(() => metric('gateway_engine_running')).toBe(0);
    const cancelled = gateway.logs.filter((line) => line.includes('"status":499') && line.includes('"error_kind":"cancelled"'));
    expect(cancelled).toHaveLength(2);
  });
});
