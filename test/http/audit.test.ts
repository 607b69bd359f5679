/**
 * The audit trail through the public HTTP interface: one record per request to the AI operations
 * and the console API, exported as JSON lines under the console API's token, swept after
 * AUDIT_RETENTION_DAYS, and free of what the requests carried.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type StartOptions, type TestGateway } from '../../scripts/lib/gateway.js';
import { OPERATION_PATHS, VALID_BODIES } from '../support/valid-bodies.js';

const TOKEN = 'audit-test-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const DAY_MS = 24 * 60 * 60 * 1000;

interface AuditLine {
  time: string;
  caller: string | null;
  operation: string;
  method: string;
  request_id: string | null;
  upload_file_ids: number[] | null;
  status: number;
  error_kind: string | null;
  duration_ms: number;
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function gatewayWith(env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestGateway> {
  const gateway = await startGateway({ API_TOKENS: TOKEN, ...env }, options);
  cleanups.push(() => gateway.close());
  return gateway;
}

/** GET /console/api/audit with the query given; the response and its lines, parsed. */
async function exportAudit(gateway: TestGateway, query = '') {
  const response = await gateway.app.inject({ method: 'GET', url: `/console/api/audit${query}`, headers: AUTH });
  const lines = response.statusCode === 200 ? response.body.split('\n').filter(Boolean).map((line) => JSON.parse(line) as AuditLine) : [];
  return { response, lines };
}

const line = (fields: Partial<AuditLine>): AuditLine => ({
  time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown as string,
  caller: 'token 1',
  method: 'POST',
  request_id: null,
  upload_file_ids: null,
  error_kind: null,
  duration_ms: expect.any(Number) as unknown as number,
  operation: '',
  status: 0,
  ...fields,
});

describe('one audit record per request', () => {
  it('records each AI operation, job route and console API request with its caller, ids, outcome and duration; not health or metrics', async () => {
    const gateway = await gatewayWith();
    const started = Date.now();
    const inject = (method: 'GET' | 'POST', url: string, payload?: object, headers: Record<string, string> = AUTH) =>
      gateway.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

    // No engine is configured: every valid body meets the missing engine (503).
    for (const path of OPERATION_PATHS) expect((await inject('POST', path, VALID_BODIES[path])).statusCode).toBe(503);
    expect((await inject('POST', '/ai/v1/case-ocr', { ...VALID_BODIES['/ai/v1/case-ocr'], request_id: 'no-token' }, {})).statusCode).toBe(401);
    expect((await inject('POST', '/ai/v1/asr', { request_id: 'invalid' })).statusCode).toBe(400);
    expect((await inject('GET', '/ai/v1/report-advice-draft/req-unknown')).statusCode).toBe(404);
    expect((await inject('POST', '/ai/v1/report-advice-draft/req-unknown/redeliver')).statusCode).toBe(404);
    expect((await inject('GET', '/console/api/status')).statusCode).toBe(200);
    for (const open of ['/healthz', '/readyz', '/metrics', '/docs/json', '/console']) await inject('GET', open, undefined, {});

    const { response, lines } = await exportAudit(gateway);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const unavailable = { status: 503, error_kind: 'engine_unavailable' };
    expect(lines).toEqual([
      line({ operation: 'speech-process', request_id: 'req-1', ...unavailable }),
      line({ operation: 'report-advice-draft', request_id: 'req-2', ...unavailable }),
      line({ operation: 'case-file-process', request_id: 'req-3', upload_file_ids: [1], ...unavailable }),
      line({ operation: 'case-ocr', request_id: 'req-4', upload_file_ids: [1], ...unavailable }),
      line({ operation: 'asr', request_id: 'req-5', ...unavailable }),
      // Refused before the body was read: nobody, and no ids.
      line({ operation: 'case-ocr', caller: null, status: 401, error_kind: 'unauthorized' }),
      // A body that failed validation: its request_id is not taken.
      line({ operation: 'asr', status: 400, error_kind: 'invalid_request' }),
      line({ operation: 'report-advice-status', method: 'GET', request_id: 'req-unknown', status: 404, error_kind: 'not_found' }),
      line({ operation: 'report-advice-redeliver', request_id: 'req-unknown', status: 404, error_kind: 'not_found' }),
      line({ operation: '/console/api/status', method: 'GET', status: 200 }),
    ]);
    for (const { time } of lines) {
      expect(Date.parse(time)).toBeGreaterThanOrEqual(started - 1);
      expect(Date.parse(time)).toBeLessThanOrEqual(Date.now());
    }
  });

  it('names no caller where no token is required', async () => {
    const gateway = await startGateway();
    cleanups.push(() => gateway.close());
    await gateway.app.inject({ method: 'POST', url: '/ai/v1/asr', payload: VALID_BODIES['/ai/v1/asr'] });
    const response = await gateway.app.inject({ method: 'GET', url: '/console/api/audit' });
    expect(JSON.parse(response.body.trim())).toMatchObject({ caller: null, operation: 'asr', request_id: 'req-5' });
  });
});

describe('the export, GET /console/api/audit', () => {
  it('requires the console token', async () => {
    const gateway = await gatewayWith();
    const response = await gateway.app.inject({ method: 'GET', url: '/console/api/audit' });
    expect(response.statusCode).toBe(401);
  });

  it('streams the records of [since, until), oldest first; refuses a time that is not ISO 8601', async () => {
    const gateway = await gatewayWith();
    for (let index = 0; index < 6; index++) {
      await gateway.app.inject({ method: 'POST', url: '/ai/v1/asr', headers: AUTH, payload: { request_id: `req-${index}`, voice_url: 'http://127.0.0.1:9/a.wav' } });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const all = (await exportAudit(gateway)).lines;
    expect(all.map((one) => one.request_id)).toEqual(['req-0', 'req-1', 'req-2', 'req-3', 'req-4', 'req-5']);

    const [since, until] = [all[1]!.time, all[4]!.time];
    const window = await exportAudit(gateway, `?since=${since}&until=${encodeURIComponent(until.replace('Z', '+00:00'))}`);
    expect(window.lines).toEqual(all.filter((one) => one.time >= since && one.time < until));
    expect(window.lines.map((one) => one.request_id)).toEqual(expect.arrayContaining(['req-1', 'req-2', 'req-3']));
    expect(window.lines.map((one) => one.request_id)).not.toContain('req-4');

    const bad = await exportAudit(gateway, '?since=yesterday');
    expect(bad.response.statusCode).toBe(400);
    expect(bad.response.json().error).toMatchObject({ kind: 'invalid_request', message: expect.stringContaining('since') });
  });

  it('exports more records than one page of the store, each once, in order', async () => {
    const gateway = await gatewayWith();
    const count = 2_100;
    for (let index = 0; index < count; index++) {
      await gateway.app.inject({ method: 'GET', url: `/ai/v1/report-advice-draft/job-${index}`, headers: AUTH });
    }
    const { lines } = await exportAudit(gateway);
    expect(lines.map((one) => one.request_id)).toEqual(Array.from({ length: count }, (_, index) => `job-${index}`));
  }, 60_000);
});

describe('AUDIT_RETENTION_DAYS', () => {
  it('deletes the records older than the retention when the gateway starts, and keeps the newer ones', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'audit-retention-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const first = await startGateway({ API_TOKENS: TOKEN }, { dataDir, keepDataDir: true });
    for (const requestId of ['old', 'recent']) {
      await first.app.inject({ method: 'GET', url: `/ai/v1/report-advice-draft/${requestId}`, headers: AUTH });
    }
    await first.close();
    const db = new Database(join(dataDir, 'gateway.sqlite'));
    const age = db.prepare('UPDATE audit_records SET at = at - ? WHERE request_id = ?');
    age.run(3 * DAY_MS, 'old');
    age.run(DAY_MS, 'recent');
    db.close();

    const second = await gatewayWith({ AUDIT_RETENTION_DAYS: '2' }, { dataDir, keepDataDir: true });
    await expect.poll(() => second.logs.some((text) => text.includes('audit records past AUDIT_RETENTION_DAYS deleted'))).toBe(true);
    const { lines } = await exportAudit(second);
    expect(lines.map((one) => one.request_id)).toEqual(['recent']);
  });
});
