/**
 * The audit trail through the public HTTP interface: one record per request to the AI operations
 * and the console API, exported as JSON lines under the console API's token, swept after
 * AUDIT_RETENTION_DAYS, and free of what the requests carried.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditLine } from '../../src/http/console/audit-export.js';
import type { AsrEngine, OcrEngine, OcrPage, Transcript } from '../../src/engines/types.js';
import { startFileServer } from '../../scripts/lib/file-server.js';
import { baseUrl, postJson, startGateway, type StartOptions, type TestGateway } from '../../scripts/lib/gateway.js';
import { readFixture } from '../../scripts/lib/ocr-fixtures.js';
import { enginesWith } from '../../scripts/lib/stand-in-engines.js';
import { WAV_BYTES } from '../support/media-bytes.js';
import { startPlatform } from '../support/platform.js';
import { speechScript } from '../support/speech-script.js';
import { FakeAsrEngine, ScriptedLlmEngine, enginesWithAsr } from '../support/test-engines.js';
import { OPERATION_PATHS, VALID_BODIES } from '../support/valid-bodies.js';
import { waitFor } from '../support/wait.js';

const TOKEN = 'audit-test-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const DAY_MS = 24 * 60 * 60 * 1000;

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

  it('records a request its client abandoned as 499 cancelled', async () => {
    const files = await startFileServer((_request, response) => response.end(WAV_BYTES));
    cleanups.push(() => files.close());
    const engine = new FakeAsrEngine();
    // No token here: the request goes over a real connection, which the test then drops.
    const gateway = await startGateway({ FETCH_ALLOW_LOOPBACK: 'true' }, { engines: enginesWithAsr(engine), listen: true });
    cleanups.push(() => gateway.close());
    const abandon = new AbortController();
    const answer = postJson(`${baseUrl(gateway.app)}/ai/v1/asr`, { request_id: 'req-left', voice_url: files.url('/a.wav') }, abandon.signal);
    await engine.waitForCalls(1);
    abandon.abort();
    await expect(answer).rejects.toThrow();
    await expect.poll(async () => (await exportAudit(gateway)).lines.find((one) => one.request_id === 'req-left')).toEqual(
      line({ operation: 'asr', caller: null, request_id: 'req-left', status: 499, error_kind: 'cancelled' }),
    );
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

/** A marker per kind of thing a request carries or produces; none may reach the audit trail. */
const MARK = {
  token: 'MARKtokenQ7x1',
  requestHeader: 'MARKheaderQ7x2',
  speech: 'MARKspeechQ7x3',
  segment: 'MARKsegmentQ7x4',
  cancer: 'MARKcancerQ7x5',
  department: 'MARKdeptcodeQ7x6',
  point: 'MARKpointQ7x7',
  diagnosis: 'MARKdiagnosisQ7x8',
  question: 'MARKquestionQ7x9',
  opinion: 'MARKopinionQ7xa',
  doctor: 'MARKdoctorQ7xb',
  bucket: 'MARKbucketQ7xc',
  objectKey: 'MARKobjectkeyQ7xd',
  fileName: 'MARKfilenameQ7xe',
  urlPath: 'MARKurlpathQ7xf',
  urlQuery: 'MARKurlqueryQ7xg',
  ocr: 'MARKocrQ7xh',
  transcript: 'MARKtranscriptQ7xi',
  draft: 'MARKdraftQ7xj',
  upload: 'MARKuploadQ7xk',
};

/** What a stand-in engine answers besides its work: ready at once. */
const READY_STAND_IN = {
  status: () => ({ state: 'ready' as const, configured: true, model: 'marker' }),
  start: async () => undefined,
  close: async () => undefined,
};
/** Reads every page as a form naming its patient by the OCR marker. */
const markerOcr: OcrEngine = {
  name: 'ocr',
  ...READY_STAND_IN,
  recognize: async (): Promise<OcrPage> => ({
    text: `姓名：${MARK.ocr}\n病理诊断报告单 ${MARK.ocr}`,
    words: [],
    width: 100,
    height: 100,
    confidence: 90,
    rotation: 0,
    deskewRadians: 0,
  }),
};
/** Hears the transcript marker in every recording. */
const markerAsr: AsrEngine = {
  name: 'asr',
  ...READY_STAND_IN,
  transcribe: async (): Promise<Transcript> => ({ text: MARK.transcript, segments: [{ startMs: 0, endMs: 10, text: MARK.transcript }] }),
};

const ADVICE_ANSWER = { overall: MARK.draft, recommendations: [{ advice: MARK.draft, departments: [MARK.department] }], open_questions: '' };
const CALLBACK_SECRET = 'audit-test-callback-secret-0123456789';

describe('what the audit trail never holds', () => {
  it('no speech text, OCR text, transcript, draft, file URL, file name or token, in the stored records or the export', async () => {
    const files = await startFileServer((request, response) => {
      const path = request.url ?? '';
      if (path.includes('missing')) return void response.writeHead(404).end();
      response.end(path.includes('.wav') ? WAV_BYTES : readFixture('report2.png'));
    });
    cleanups.push(() => files.close());
    const platform = await startPlatform({ secret: CALLBACK_SECRET });
    cleanups.push(() => platform.close());
    const speechAnswer = speechScript({ 1: { status: 'covered', quote: MARK.speech } }, { valuePrefix: MARK.speech, conclusion: MARK.speech });
    const llm = new ScriptedLlmEngine((request) => (request.schema.safeParse(ADVICE_ANSWER).success ? ADVICE_ANSWER : speechAnswer(request)));
    const dataDir = await mkdtemp(join(tmpdir(), 'audit-markers-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const gateway = await startGateway(
      {
        API_TOKENS: MARK.token,
        FETCH_ALLOW_LOOPBACK: 'true',
        CALLBACK_BASE_URL: platform.url,
        CALLBACK_SECRET,
      },
      { engines: enginesWith({ llm, ocr: markerOcr, asr: markerAsr }), dataDir, keepDataDir: true },
    );
    const headers = { authorization: `Bearer ${MARK.token}`, 'x-request-id': MARK.requestHeader };
    let uploadToken = '';
    const post = async (url: string, payload: object) => {
      const response = await gateway.app.inject({ method: 'POST', url, headers, payload });
      return { status: response.statusCode, body: response.body };
    };
    const fileUrl = (name: string) => files.url(`/${MARK.urlPath}/${name}?sig=${MARK.urlQuery}`);
    const caseFiles = (name: string) => [
      { upload_file_id: 71, bucket: MARK.bucket, object_key: MARK.objectKey, file_name: `${MARK.fileName}.png`, file_url: fileUrl(name) },
    ];

    try {
      const speech = await post('/ai/v1/speech-process', {
        request_id: 'audit-speech',
        cancer_type: MARK.cancer,
        standard_department_code: MARK.department,
        points: [{ seq: 1, name: MARK.point }],
        speech_text: `患者 ${MARK.speech} 右肺上叶见肿块。`,
        voice_segments: [{ voice_url: fileUrl('a.wav'), start_ms: 0, end_ms: 10, text: MARK.segment }],
      });
      expect(speech.status).toBe(200);
      expect(speech.body).toContain(MARK.speech);

      const advice = await post('/ai/v1/report-advice-draft', {
        request_id: 'audit-advice',
        cancer_type: MARK.cancer,
        case_summary: { diagnosis: MARK.diagnosis, key_question: MARK.question },
        dept_opinions: [{ dept: MARK.department, content: MARK.opinion, supplements: [{ doctor: MARK.doctor, content: MARK.opinion }] }],
      });
      expect(advice.status).toBe(202);
      const jobState = async () =>
        (await gateway.app.inject({ method: 'GET', url: '/ai/v1/report-advice-draft/audit-advice', headers })).json<{ state: string }>().state;
      await waitFor(jobState, (state) => state === 'delivered');
      expect(platform.received.at(-1)?.body).toContain(MARK.draft);

      const deidentified = await post('/ai/v1/case-file-process', { request_id: 'audit-deid', files: caseFiles('report.png') });
      expect(deidentified.status).toBe(200);
      const read = await post('/ai/v1/case-ocr', { request_id: 'audit-ocr', files: caseFiles('report.png') });
      expect(read.status).toBe(200);
      expect(read.body).toContain(MARK.ocr);
      const missing = await post('/ai/v1/case-ocr', { request_id: 'audit-missing', files: caseFiles('missing.png') });
      expect(missing.status).toBeGreaterThanOrEqual(400);
      const heard = await post('/ai/v1/asr', { request_id: 'audit-asr', voice_url: fileUrl('voice.wav') });
      expect(heard.status).toBe(200);
      expect(heard.body).toContain(MARK.transcript);

      const upload = await gateway.app.inject({
        method: 'POST',
        url: '/console/api/uploads',
        headers: { ...headers, 'content-type': 'application/octet-stream' },
        payload: Buffer.concat([readFixture('report2.png'), Buffer.from(MARK.upload)]),
      });
      expect(upload.statusCode).toBe(201);
      uploadToken = upload.json<{ token: string }>().token;
      const removed = await gateway.app.inject({ method: 'DELETE', url: `/console/api/uploads/${uploadToken}`, headers });
      expect(removed.statusCode).toBe(204);

      const exported = await gateway.app.inject({ method: 'GET', url: '/console/api/audit', headers });
      const lines = exported.body.split('\n').filter(Boolean).map((text) => JSON.parse(text) as AuditLine);
      // The records are there, with their ids...
      expect(lines.map(({ request_id, status }) => [request_id, status])).toEqual(
        expect.arrayContaining([
          ['audit-speech', 200],
          ['audit-advice', 202],
          ['audit-advice', 200],
          ['audit-deid', 200],
          ['audit-ocr', 200],
          ['audit-missing', missing.status],
          ['audit-asr', 200],
          [null, 201],
          [null, 204],
        ]),
      );
      expect(lines.find((one) => one.request_id === 'audit-ocr')?.upload_file_ids).toEqual([71]);
      // ...and nothing the requests carried or produced.
      const forbidden = [...Object.values(MARK), uploadToken, files.url('/')];
      for (const marker of forbidden) expect(exported.body, marker).not.toContain(marker);
    } finally {
      await gateway.close();
    }

    // The database file: the markers reached it (the cached AI-1&2 result quotes the speech), so a
    // grep finds them; with every table but the audit trail's dropped, none is left.
    const databaseFile = join(dataDir, 'gateway.sqlite');
    expect((await readFile(databaseFile)).includes(MARK.speech)).toBe(true);
    const db = new Database(databaseFile);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('audit_records', 'sqlite_sequence')").all() as Array<{ name: string }>;
    db.pragma('foreign_keys = OFF');
    for (const { name } of tables) db.exec(`DROP TABLE "${name}"`);
    db.exec('VACUUM');
    const auditRows = db.prepare('SELECT COUNT(*) AS count FROM audit_records').get() as { count: number };
    db.close();
    expect(auditRows.count).toBeGreaterThanOrEqual(9);
    const auditOnly = await readFile(databaseFile);
    for (const marker of [...Object.values(MARK), uploadToken]) expect(auditOnly.includes(marker), marker).toBe(false);
  }, 60_000);
});
