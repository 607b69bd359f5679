import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postCallback } from '../../src/operations/report-advice-draft/callbacks/delivery.js';
import { signCallback } from '../../src/operations/report-advice-draft/callbacks/signature.js';
import { createLogger } from '../../src/platform/logger.js';
import { buildReceiverApp, type ReceiverOptions } from '../../src/receiver/app.js';
import { loadReceiverConfig } from '../../src/receiver/settings.js';
import { openReceiverDatabase } from '../../src/receiver/store.js';
import { ProcessSet } from '../../scripts/lib/processes.js';
import { webhookSecretFor } from '../../scripts/lib/secrets.js';

const SECRET = webhookSecretFor('receiver');
const REQUEST_ID = 'req-advice-1';
const DRAFT = '建议行右肺上叶切除术，术后辅助化疗。';
const PROCESSOR_VERSION = { prompt: 'advice-v1#abc', model: 'qwen.gguf#def' };

function succeeded(adviceDraft: string, requestId = REQUEST_ID) {
  return {
    request_id: requestId,
    status: 'succeeded',
    advice_draft: adviceDraft,
    processor_version: PROCESSOR_VERSION,
    completed_at: '2026-01-01T00:00:00Z',
  };
}

function failed(kind = 'engine_failed') {
  return {
    request_id: REQUEST_ID,
    status: 'failed',
    error: { kind, message: 'the model did not answer' },
    processor_version: PROCESSOR_VERSION,
    completed_at: '2026-01-01T00:00:00Z',
  };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function signedHeaders(body: string, options: { id?: string; secret?: string; timestamp?: number } = {}) {
  const id = options.id ?? 'wh-1';
  const timestamp = options.timestamp ?? nowSeconds();
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signCallback(options.secret ?? SECRET, id, timestamp, body),
  };
}

interface Receiver {
  app: FastifyInstance;
  db: Database.Database;
  logs: string[];
}

let dataDir: string;
const opened: Receiver[] = [];

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'receiver-test-'));
});

afterEach(async () => {
  for (const { app, db } of opened.splice(0)) {
    await app.close();
    db.close();
  }
  await rm(dataDir, { recursive: true, force: true });
});

async function startReceiver(options: Partial<Omit<ReceiverOptions, 'db' | 'logger'>> = {}): Promise<Receiver> {
  const db = await openReceiverDatabase(dataDir);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const app = await buildReceiverApp({
    db,
    secret: SECRET,
    toleranceSeconds: 300,
    allowUnsigned: false,
    logger: createLogger('debug', sink),
    ...options,
  });
  const receiver = { app, db, logs };
  opened.push(receiver);
  return receiver;
}

function post(app: FastifyInstance, payload: string, headers: Record<string, string>) {
  return app.inject({ method: 'POST', url: '/internal/ai/callback', payload, headers });
}

function postSigned(app: FastifyInstance, callback: object, options: { id?: string; secret?: string; timestamp?: number } = {}) {
  const body = JSON.stringify(callback);
  return post(app, body, signedHeaders(body, options));
}

async function report(app: FastifyInstance, requestId = REQUEST_ID) {
  const response = await app.inject({ method: 'GET', url: `/internal/ai/reports/${encodeURIComponent(requestId)}` });
  return response.statusCode === 200 ? response.json<Record<string, unknown>>() : undefined;
}

function webhookIdRecorded(db: Database.Database, id: string): boolean {
  return db.prepare('SELECT 1 FROM received_callbacks WHERE webhook_id = ?').get(id) !== undefined;
}

describe('signed callbacks', () => {
  it('stores a succeeded draft in ai_advice_ref', async () => {
    const { app, db, logs } = await startReceiver();
    const response = await postSigned(app, succeeded(DRAFT));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'stored' });
    expect(await report(app)).toMatchObject({
      request_id: REQUEST_ID,
      treatment_advice: null,
      ai_advice_ref: DRAFT,
      ai_status: 'succeeded',
      ai_error_kind: null,
    });
    expect(webhookIdRecorded(db, 'wh-1')).toBe(true);
    expect(logs.join('')).toContain(REQUEST_ID);
    expect(logs.join('')).not.toContain(DRAFT);
  });

  it("never touches the supervising doctor's treatment_advice", async () => {
    const { app, db } = await startReceiver();
    db.prepare('INSERT INTO consultation_report (request_id, treatment_advice) VALUES (?, ?)').run(REQUEST_ID, '主任医师正式意见');
    expect((await postSigned(app, succeeded(DRAFT))).statusCode).toBe(200);
    expect(await report(app)).toMatchObject({ treatment_advice: '主任医师正式意见', ai_advice_ref: DRAFT, ai_status: 'succeeded' });
  });

  it('accepts a draft of exactly 10,000 characters', async () => {
    const { app } = await startReceiver();
    const draft = '意'.repeat(10_000);
    expect((await postSigned(app, succeeded(draft))).statusCode).toBe(200);
    expect((await report(app))?.ai_advice_ref).toBe(draft);
  });

  it.each([
    ['10,001 characters', '意'.repeat(10_001), 'advice_draft: longer than 10,000 characters'],
    ['only whitespace', '  \n\t ', 'advice_draft: empty after removing whitespace'],
  ])('refuses a draft of %s with 422 and stores nothing', async (_case, draft, message) => {
    const { app, db } = await startReceiver();
    const response = await postSigned(app, succeeded(draft));
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({ error: { kind: 'invalid_callback', message } });
    expect(await report(app)).toBeUndefined();
    expect(webhookIdRecorded(db, 'wh-1')).toBe(false);
  });

  it('names the field of other contract violations', async () => {
    const { app } = await startReceiver();
    const { processor_version: _omitted, ...withoutVersion } = succeeded(DRAFT);
    const response = await postSigned(app, withoutVersion);
    expect(response.statusCode).toBe(422);
    expect(response.json<{ error: { message: string } }>().error.message).toMatch(/^processor_version: /);
  });

  it('answers a repeated webhook-id with duplicate and applies nothing, even a different draft', async () => {
    const { app } = await startReceiver();
    await postSigned(app, succeeded(DRAFT), { id: 'wh-dup' });
    const before = await report(app);
    const response = await postSigned(app, succeeded('另一份草稿'), { id: 'wh-dup' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'duplicate' });
    expect(await report(app)).toEqual(before);
  });

  it('stores a failure without clearing an earlier draft', async () => {
    const { app } = await startReceiver();
    await postSigned(app, succeeded(DRAFT), { id: 'wh-1' });
    const response = await postSigned(app, failed('timeout'), { id: 'wh-2' });
    expect(response.json()).toEqual({ status: 'stored' });
    expect(await report(app)).toMatchObject({ ai_advice_ref: DRAFT, ai_status: 'failed', ai_error_kind: 'timeout' });
  });

  it('stores a failure for a report it has not seen', async () => {
    const { app } = await startReceiver();
    expect((await postSigned(app, failed())).statusCode).toBe(200);
    expect(await report(app)).toMatchObject({ ai_advice_ref: null, ai_status: 'failed', ai_error_kind: 'engine_failed' });
  });

  it('answers 400 to a correctly signed body that is not JSON', async () => {
    const { app, db } = await startReceiver();
    const body = '{"request_id": ';
    const response = await post(app, body, signedHeaders(body));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { kind: 'invalid_request', message: 'request body is not valid JSON' } });
    expect(webhookIdRecorded(db, 'wh-1')).toBe(false);
  });

  it('answers 415 to a body that is not application/json', async () => {
    const { app } = await startReceiver();
    const body = JSON.stringify(succeeded(DRAFT));
    const response = await post(app, body, { ...signedHeaders(body), 'content-type': 'text/plain' });
    expect(response.statusCode).toBe(415);
    expect(response.json<{ error: { kind: string } }>().error.kind).toBe('unsupported_media');
  });

  it('answers 404 for a report it does not have', async () => {
    const { app } = await startReceiver();
    const response = await app.inject({ method: 'GET', url: '/internal/ai/reports/unknown' });
    expect(response.statusCode).toBe(404);
    expect(response.json<{ error: { kind: string } }>().error.kind).toBe('not_found');
  });
});

describe('the Standard Webhooks form', () => {
  it('stores a callback signed with the Standard Webhooks reference library', async () => {
    const { app } = await startReceiver();
    const body = JSON.stringify(succeeded(DRAFT));
    const timestamp = nowSeconds();
    const signature = new Webhook(SECRET).sign('wh-standard', new Date(timestamp * 1000), body);
    const headers = { 'content-type': 'application/json', 'webhook-id': 'wh-standard', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    expect((await post(app, body, headers)).statusCode).toBe(200);
  });

  it.each(['receiver-test-secret-0123456789', 'whsec_c2hvcnQ=', `whsec_${'A'.repeat(31)}!`])('refuses to start with CALLBACK_SECRET=%j', (secret) => {
    expect(() => loadReceiverConfig({ CALLBACK_SECRET: secret })).toThrow(/CALLBACK_SECRET: .*openssl rand -base64 32/);
  });
});

describe('refused signatures', () => {
  const body = JSON.stringify(succeeded(DRAFT));
  const refusals: Array<[string, Record<string, string>, string]> = [
    ['a tampered signature', { ...signedHeaders(body), 'webhook-signature': signCallback(SECRET, 'wh-1', nowSeconds(), '{}') }, 'bad_signature'],
    ['a wrong secret', signedHeaders(body, { secret: webhookSecretFor('some-other') }), 'bad_signature'],
    ['missing headers', { 'content-type': 'application/json', 'webhook-id': 'wh-1' }, 'missing_headers'],
    ['a stale timestamp', signedHeaders(body, { timestamp: nowSeconds() - 301 }), 'stale_timestamp'],
  ];

  it.each(refusals)('refuses %s with 401, stores nothing and accepts a correct retry with the same id', async (_case, headers, reason) => {
    const { app, db } = await startReceiver();
    const response = await post(app, body, headers);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: { kind: 'unauthorized', message: `callback signature refused: ${reason}` } });
    expect(await report(app)).toBeUndefined();
    expect(webhookIdRecorded(db, 'wh-1')).toBe(false);

    const retry = await post(app, body, signedHeaders(body, { id: 'wh-1' }));
    expect(retry.json()).toEqual({ status: 'stored' });
    expect((await report(app))?.ai_advice_ref).toBe(DRAFT);
  });

  it('checks the signature before the body, so unsigned garbage gets 401', async () => {
    const { app } = await startReceiver();
    const response = await post(app, 'not json', { 'content-type': 'application/json' });
    expect(response.statusCode).toBe(401);
  });
});

describe('allowUnsigned', () => {
  it('accepts a callback without any signature headers', async () => {
    const { app } = await startReceiver({ allowUnsigned: true });
    const response = await post(app, JSON.stringify(succeeded(DRAFT)), { 'content-type': 'application/json' });
    expect(response.json()).toEqual({ status: 'stored' });
    expect((await report(app))?.ai_advice_ref).toBe(DRAFT);
  });

  it('still refuses a wrongly signed callback', async () => {
    const { app } = await startReceiver({ allowUnsigned: true });
    const response = await postSigned(app, succeeded(DRAFT), { secret: webhookSecretFor('some-other') });
    expect(response.statusCode).toBe(401);
    expect(await report(app)).toBeUndefined();
  });

  it('refuses every signed callback when it has no secret to check them with', async () => {
    const { app } = await startReceiver({ allowUnsigned: true, secret: undefined });
    expect((await postSigned(app, succeeded(DRAFT))).statusCode).toBe(401);
  });
});

describe('secret rotation', () => {
  const OLD = SECRET;
  const NEW = webhookSecretFor('receiver-new');

  /** The gateway's own delivery code, signing with the new and the previous secret, POSTing to a listening receiver. */
  async function deliverDuringRotation(receiver: Receiver, requestId: string) {
    await receiver.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = receiver.app.server.address() as { port: number };
    const target = { url: `http://127.0.0.1:${port}/internal/ai/callback`, secret: NEW, previousSecret: OLD, timeoutMs: 5_000 };
    const body = JSON.stringify(succeeded(DRAFT, requestId));
    return postCallback(target, { webhookId: `wh-${requestId}`, body }, new AbortController().signal);
  }

  it('the gateway sends one signature per secret; a receiver still on the old secret accepts', async () => {
    const headerValue = signCallback([NEW, OLD], 'wh-1', nowSeconds(), '{}');
    expect(headerValue).toMatch(/^v1,[A-Za-z0-9+/=]{44} v1,[A-Za-z0-9+/=]{44}$/);
    const receiver = await startReceiver({ secret: OLD });
    expect(await deliverDuringRotation(receiver, 'rot-1')).toEqual({ delivered: true, detail: 'HTTP 200' });
    expect(await report(receiver.app, 'rot-1')).toMatchObject({ ai_advice_ref: DRAFT });
  });

  it('a receiver already on the new secret accepts', async () => {
    const receiver = await startReceiver({ secret: NEW });
    expect(await deliverDuringRotation(receiver, 'rot-2')).toEqual({ delivered: true, detail: 'HTTP 200' });
  });

  it('a receiver with both secrets accepts a callback signed with either alone, and no other', async () => {
    const { app } = await startReceiver({ secret: NEW, previousSecret: OLD });
    expect((await postSigned(app, succeeded(DRAFT, 'rot-3'), { id: 'wh-3', secret: OLD })).statusCode).toBe(200);
    expect((await postSigned(app, succeeded(DRAFT, 'rot-4'), { id: 'wh-4', secret: NEW })).statusCode).toBe(200);
    const stranger = await postSigned(app, succeeded(DRAFT, 'rot-5'), { id: 'wh-5', secret: webhookSecretFor('some-other') });
    expect(stranger.statusCode).toBe(401);
  });

  it('a receiver on a third secret refuses the callback', async () => {
    const receiver = await startReceiver({ secret: webhookSecretFor('some-other') });
    expect(await deliverDuringRotation(receiver, 'rot-6')).toEqual({ delivered: false, detail: 'HTTP 401' });
  });
});

describe('the receiver process', () => {
  const processes = new ProcessSet();
  afterEach(() => processes.killAll());

  it('stores a signed callback, serves it back and exits 0 on SIGTERM', async () => {
    const { child, port } = await processes.startOnFreePort(
      'src/receiver/main.ts',
      (free) => ({
        RECEIVER_HOST: '127.0.0.1',
        RECEIVER_PORT: String(free),
        RECEIVER_DATA_DIR: dataDir,
        CALLBACK_SECRET: SECRET,
        RECEIVER_ALLOW_UNSIGNED: 'false',
        RECEIVER_TOLERANCE_SECONDS: '300',
      }),
      'receiver listening',
    );
    const exited = once(child, 'exit');

    const base = `http://127.0.0.1:${port}`;
    const body = JSON.stringify(succeeded(DRAFT));
    const posted = await fetch(`${base}/internal/ai/callback`, { method: 'POST', headers: signedHeaders(body), body });
    expect(posted.status).toBe(200);
    expect(await posted.json()).toEqual({ status: 'stored' });
    const fetched = await fetch(`${base}/internal/ai/reports/${REQUEST_ID}`);
    expect(await fetched.json()).toMatchObject({ request_id: REQUEST_ID, ai_advice_ref: DRAFT, ai_status: 'succeeded' });

    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
  }, 10_000);
});
