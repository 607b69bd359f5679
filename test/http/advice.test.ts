import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { adviceJobStatus } from '../../src/contract/advice.js';
import { LIMITS } from '../../src/contract/limits.js';
import { GatewayError } from '../../src/errors.js';
import { verifyCallback } from '../../src/operations/report-advice-draft/callbacks/signature.js';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { startPlatform as startSupportPlatform, type Platform } from '../support/platform.js';
import { ScriptedLlmEngine, type ScriptedAnswer } from '../support/test-engines.js';
import { enginesWith } from '../../scripts/lib/stand-in-engines.js';
import { waitFor } from '../support/wait.js';
import { webhookSecretFor } from '../../scripts/lib/secrets.js';

const PATH = '/ai/v1/report-advice-draft';
const SECRET = webhookSecretFor('advice');
const PATIENT_SENTINEL = '患者王秘密某某';

const request = (changes: Record<string, unknown> = {}) => ({
  request_id: 'req-advice-1',
  cancer_type: '肺癌',
  case_summary: { diagnosis: `右肺腺癌 cT2aN2M0 IIIA期，EGFR 19del。${PATIENT_SENTINEL}`, key_question: '是否手术？' },
  dept_opinions: [
    { dept: '胸外科', content: '建议先行新辅助治疗后评估手术。', supplements: [{ doctor: '张医生', content: '完善PET-CT。' }] },
    { dept: '肿瘤内科', content: '建议奥希替尼靶向治疗。', supplements: [] },
  ],
  ...changes,
});

const ANSWER_ZH = {
  overall: '两科均倾向先行系统治疗，再评估手术时机。',
  recommendations: [
    { advice: '先行新辅助治疗，复查后评估手术切除。', departments: ['胸外科'] },
    { advice: '可考虑奥希替尼靶向治疗。', departments: ['肿瘤内科', '肿瘤内科'] },
  ],
  open_questions: '需完善PET-CT评估纵隔淋巴结。',
};

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startPlatform(options: { failFirst?: number; secret?: string | undefined } = {}): Promise<Platform> {
  const platform = await startSupportPlatform({ secret: 'secret' in options ? options.secret : SECRET, ...(options.failFirst ? { failFirst: options.failFirst } : {}) });
  cleanups.push(() => platform.close());
  return platform;
}

async function gatewayWith(
  answer: ScriptedAnswer,
  platform: Platform | undefined,
  env: Record<string, string> = {},
  options: { dataDir?: string; contextTokens?: number } = {},
): Promise<{ gateway: TestGateway; engine: ScriptedLlmEngine }> {
  const engine = new ScriptedLlmEngine(answer, { contextTokens: options.contextTokens ?? 4096 });
  const gateway = await startGateway(
    {
      ...(platform ? { CALLBACK_BASE_URL: platform.url, CALLBACK_SECRET: SECRET } : {}),
      CALLBACK_RETRY_BASE_MS: '20',
      CALLBACK_RETRY_MAX_DELAY_MS: '100',
      ...env,
    },
    { engines: enginesWith({ llm: engine }), ...(options.dataDir ? { dataDir: options.dataDir, keepDataDir: true } : {}) },
  );
  cleanups.push(() => gateway.close());
  return { gateway, engine };
}

async function submit(gateway: TestGateway, body: Record<string, unknown> = request()) {
  const response = await gateway.app.inject({ method: 'POST', url: PATH, payload: body });
  return { status: response.statusCode, json: response.json<Record<string, unknown>>() };
}

async function jobStatus(gateway: TestGateway, requestId = 'req-advice-1') {
  const response = await gateway.app.inject({ method: 'GET', url: `${PATH}/${requestId}` });
  return { status: response.statusCode, json: response.json<Record<string, unknown>>(), raw: response.body };
}

const untilState = (gateway: TestGateway, state: string, requestId = 'req-advice-1') =>
  waitFor(
    () => jobStatus(gateway, requestId),
    (s) => s.json.state === state,
  );

describe('AI-3 submission', () => {
  it('answers 202 accepted, drafts, and delivers a signed callback the receiver stores in ai_advice_ref', async () => {
    const platform = await startPlatform();
    const { gateway } = await gatewayWith(() => ANSWER_ZH, platform);

    const accepted = await submit(gateway);
    expect(accepted).toEqual({ status: 202, json: { request_id: 'req-advice-1', accepted: true } });
    await untilState(gateway, 'delivered');

    expect(platform.received).toHaveLength(1);
    const [callback] = platform.received;
    const verified = verifyCallback(
      SECRET,
      {
        id: callback!.headers['webhook-id'] as string,
        timestamp: callback!.headers['webhook-timestamp'] as string,
        signature: callback!.headers['webhook-signature'] as string,
      },
      callback!.body,
      { toleranceSeconds: 60 },
    );
    expect(verified).toEqual({ ok: true });
    // The platform may verify with the Standard Webhooks reference library instead of our receiver.
    expect(new Webhook(SECRET).verify(callback!.body, callback!.headers as Record<string, string>)).toEqual(JSON.parse(callback!.body));
    expect(() => new Webhook(webhookSecretFor('not the gateway')).verify(callback!.body, callback!.headers as Record<string, string>)).toThrow();
    const body = JSON.parse(callback!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ request_id: 'req-advice-1', status: 'succeeded', processor_version: { model: 'scripted.gguf@000000000000' } });
    expect(body.processor_version).toMatchObject({ prompt: expect.stringMatching(/^advice-v1@[0-9a-f]{12}$/) });
    expect(Date.parse(body.completed_at as string)).not.toBeNaN();

    const draft = body.advice_draft as string;
    expect(draft).toContain('AI 生成，仅供主持医生审阅参考');
    expect(draft).toContain('两科均倾向先行系统治疗');
    expect(draft).toContain('1. 先行新辅助治疗，复查后评估手术切除。（依据：胸外科）');
    expect(draft).toContain('2. 可考虑奥希替尼靶向治疗。（依据：肿瘤内科）');
    expect(draft).toContain('补充（张医生）：完善PET-CT。');
    expect(await platform.report('req-advice-1')).toMatchObject({ ai_advice_ref: draft, treatment_advice: null, ai_status: 'succeeded' });
  });

  it('reports the job without patient text, with its attempt history', async () => {
    const platform = await startPlatform();
    const { gateway } = await gatewayWith(() => ANSWER_ZH, platform);
    await submit(gateway);
    const { status, json, raw } = await untilState(gateway, 'delivered');

    expect(status).toBe(200);
    expect(adviceJobStatus.parse(json)).toMatchObject({
      request_id: 'req-advice-1',
      state: 'delivered',
      outcome: 'succeeded',
      error: null,
      draft_attempts: 1,
      delivery_attempts: 1,
      next_attempt_at: null,
      webhook_id: platform.received[0]!.headers['webhook-id'],
    });
    expect((json.history as Array<{ event: string }>).map((e) => e.event)).toEqual([
      'accepted',
      'draft_started',
      'drafted',
      'delivery_started',
      'delivery_attempt',
      'delivered',
    ]);
    expect(raw).not.toContain(PATIENT_SENTINEL);
    expect(raw).not.toContain('奥希替尼');
    expect(gateway.logs.join('\n')).not.toContain(PATIENT_SENTINEL);
  });

  it('takes the same request again as the same job: one job, one callback', async () => {
    const platform = await startPlatform();
    const { gateway, engine } = await gatewayWith(() => ANSWER_ZH, platform);
    expect((await submit(gateway)).status).toBe(202);
    expect(await submit(gateway, { ...request(), dept_opinions: request().dept_opinions })).toEqual({
      status: 202,
      json: { request_id: 'req-advice-1', accepted: true },
    });
    await untilState(gateway, 'delivered');
    const before = (await jobStatus(gateway, 'req-advice-1')).json;
    expect((await submit(gateway)).status).toBe(202);

    // Taken as the job it is: still delivered, its history only noting the resubmission (a job
    // queued again would be `queued` or `running` at once).
    const after = (await jobStatus(gateway, 'req-advice-1')).json as { state: string; history: Array<{ event: string }> };
    expect(after).toMatchObject({ ...before, history: [...(before.history as unknown[]), expect.objectContaining({ event: 'resubmitted' })] });
    expect(after.history).toHaveLength((before.history as unknown[]).length + 1);
    expect(engine.requests).toHaveLength(1);
    expect(platform.received).toHaveLength(1);
  });

  it('refuses a different body under a used request_id with 409 conflict, in the AI-3 error shape', async () => {
    const { gateway } = await gatewayWith(() => ANSWER_ZH, await startPlatform());
    await submit(gateway);
    const conflicting = await submit(gateway, request({ cancer_type: '胃癌' }));

    expect(conflicting.status).toBe(409);
    expect(conflicting.json).toEqual({
      error: { kind: 'conflict', message: expect.stringContaining('req-advice-1 was already submitted with a different body') },
    });
  });

  it('answers 404 not_found, without retryable, for an unknown job', async () => {
    const { gateway } = await gatewayWith(() => ANSWER_ZH, await startPlatform());
    const { status, json } = await jobStatus(gateway, 'no-such-job');
    expect(status).toBe(404);
    expect(json).toEqual({ error: { kind: 'not_found', message: 'no report advice job with this request_id' } });
  });

  it('refuses with 503 engine_unavailable when CALLBACK_BASE_URL is not set, and persists nothing', async () => {
    const { gateway } = await gatewayWith(() => ANSWER_ZH, undefined);
    const response = await submit(gateway);
    expect(response.status).toBe(503);
    expect(response.json).toEqual({ error: { kind: 'engine_unavailable', message: expect.stringContaining('CALLBACK_BASE_URL') } });
    expect((await jobStatus(gateway)).status).toBe(404);
  });

  it('refuses with 503 engine_unavailable when no LLM is configured', async () => {
    const platform = await startPlatform();
    const gateway = await startGateway({ CALLBACK_BASE_URL: platform.url, CALLBACK_SECRET: SECRET });
    cleanups.push(() => gateway.close());
    const response = await submit(gateway);
    expect(response.status).toBe(503);
    expect(response.json).toMatchObject({ error: { kind: 'engine_unavailable' } });
  });
});

describe('AI-3 drafting', () => {
  it('drafts English advice for English opinions', async () => {
    const platform = await startPlatform();
    const { gateway, engine } = await gatewayWith(
      () => ({
        overall: 'Both teams favour systemic therapy first.',
        recommendations: [{ advice: 'Neoadjuvant therapy, then reassess for surgery.', departments: ['Thoracic surgery'] }],
        open_questions: '',
      }),
      platform,
    );
    await submit(
      gateway,
      request({
        cancer_type: 'Lung cancer',
        case_summary: { diagnosis: 'Right upper lobe adenocarcinoma, cT2aN2M0', key_question: 'Is surgery indicated?' },
        dept_opinions: [
          {
            dept: 'Thoracic surgery',
            content: 'Neoadjuvant therapy first, then reassess.',
            supplements: [{ doctor: 'Dr Li', content: 'PET-CT is needed.' }],
          },
        ],
      }),
    );
    await untilState(gateway, 'delivered');

    expect(engine.requests[0]!.messages[0]!.content).toContain('Write everything in English');
    const draft = (JSON.parse(platform.received[0]!.body) as { advice_draft: string }).advice_draft;
    expect(draft).toMatch(/^Treatment advice draft \(AI-generated reference/);
    expect(draft).toContain('1. Neoadjuvant therapy, then reassess for surgery. (based on: Thoracic surgery)');
    expect(draft).toContain('Supplement (Dr Li): PET-CT is needed.');
    expect(draft).not.toMatch(/\p{Script=Han}/u);
  });

  it('keeps a draft of the largest request under 10,000 characters, cut at a sentence end, with every department', async () => {
    const platform = await startPlatform();
    const answer = { ...ANSWER_ZH, recommendations: ANSWER_ZH.recommendations.slice(0, 1) };
    const { gateway, engine } = await gatewayWith(() => answer, platform);
    const sentence = '患者一般情况良好，建议继续当前方案并定期复查。';
    const longText = sentence.repeat(Math.floor(LIMITS.opinionChars / sentence.length));
    const depts = Array.from({ length: LIMITS.deptOpinions }, (_, i) => ({
      dept: i === 0 ? '胸外科' : `科室${i}`,
      content: longText,
      supplements: [{ doctor: `医生${i}`, content: longText }],
    }));
    await submit(gateway, request({ dept_opinions: depts }));
    const { json } = await untilState(gateway, 'delivered');
    expect(json).toMatchObject({ outcome: 'succeeded' });

    const draft = (JSON.parse(platform.received[0]!.body) as { advice_draft: string }).advice_draft;
    expect(draft.length).toBeLessThanOrEqual(LIMITS.adviceDraftChars);
    expect(draft.length).toBeGreaterThan(LIMITS.adviceDraftChars * 0.8);
    expect(draft).toMatch(/[。！？；…]$/u);
    for (const dept of depts) expect(draft).toContain(`【${dept.dept}】`);
    // The prompt was condensed to fit the model's context (4096 tokens at 1.5 characters a token here).
    const prompt = engine.requests[0]!.messages.map((m) => m.content).join('');
    expect(prompt.length / 1.5 + engine.requests[0]!.maxTokens).toBeLessThan(4096);
  });

  it('delivers a failed callback with the kind when the model never gives usable advice', async () => {
    const platform = await startPlatform();
    const loop = { overall: '好'.repeat(40), recommendations: [], open_questions: '' };
    const { gateway, engine } = await gatewayWith(() => loop, platform, { ADVICE_DRAFT_ATTEMPTS: '2' });
    await submit(gateway);
    const { json } = await waitFor(
      () => jobStatus(gateway),
      (s) => s.json.state === 'delivered',
      15_000,
    );

    expect(engine.requests).toHaveLength(2);
    expect(json).toMatchObject({ outcome: 'failed', error: { kind: 'engine_failed' }, draft_attempts: 2 });
    const body = JSON.parse(platform.received[0]!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'failed', error: { kind: 'engine_failed', message: expect.stringContaining('no usable advice') } });
    expect(body).not.toHaveProperty('advice_draft');
    expect(await platform.report('req-advice-1')).toMatchObject({ ai_status: 'failed', ai_advice_ref: null });
  });

  it('fails at once, without retrying, on an error that will not go away', async () => {
    const platform = await startPlatform();
    const { gateway, engine } = await gatewayWith(() => {
      throw new GatewayError('payload_too_large', 'the prompt does not fit');
    }, platform);
    await submit(gateway);
    const { json } = await untilState(gateway, 'delivered');
    expect(engine.requests).toHaveLength(1);
    expect(json).toMatchObject({ outcome: 'failed', error: { kind: 'payload_too_large', message: 'the prompt does not fit' } });
  });
});

describe('AI-3 callback delivery', () => {
  it('retries a refused callback with the same webhook-id until a 2xx', async () => {
    const platform = await startPlatform({ failFirst: 3 });
    const { gateway } = await gatewayWith(() => ANSWER_ZH, platform);
    await submit(gateway);
    const { json } = await untilState(gateway, 'delivered');

    expect(platform.received.map((c) => c.status)).toEqual([503, 503, 503, 200]);
    expect(new Set(platform.received.map((c) => c.headers['webhook-id'])).size).toBe(1);
    expect(new Set(platform.received.map((c) => c.body)).size).toBe(1);
    expect(json).toMatchObject({ delivery_attempts: 4 });
    const attempts = (json.history as Array<{ event: string; detail: string }>).filter((e) => e.event === 'delivery_attempt');
    expect(attempts.map((a) => a.detail)).toEqual(['attempt 1: HTTP 503', 'attempt 2: HTTP 503', 'attempt 3: HTTP 503', 'attempt 4: HTTP 200']);
  });

  it('retries when the platform cannot be reached, and gives up as dead after the horizon, visible in /metrics', async () => {
    const unreachable = { url: 'http://127.0.0.1:9', received: [], receiver: undefined as never, report: async () => undefined, recover: () => {}, close: async () => {} };
    const { gateway } = await gatewayWith(() => ANSWER_ZH, unreachable, { CALLBACK_RETRY_HORIZON_MS: '300' });
    await submit(gateway);
    const { json } = await untilState(gateway, 'dead');

    expect(json.delivery_attempts).toBeGreaterThanOrEqual(2);
    expect((json.history as Array<{ detail: string | null }>).some((e) => e.detail?.includes('ECONNREFUSED'))).toBe(true);
    const metrics = (await gateway.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/gateway_advice_jobs\{state="dead"\} 1/);
    expect(metrics).toMatch(/gateway_advice_callback_attempts_total\{result="failed"\} [2-9]/);
  });

  it('redelivers a dead job on an operator\'s request, with a fresh horizon, and refuses a job that is not dead', async () => {
    const platform = await startPlatform({ failFirst: Number.POSITIVE_INFINITY });
    const { gateway } = await gatewayWith(() => ANSWER_ZH, platform, { CALLBACK_RETRY_HORIZON_MS: '300' });
    await submit(gateway);
    await untilState(gateway, 'dead');
    platform.recover();

    const redeliver = (requestId = 'req-advice-1') => gateway.app.inject({ method: 'POST', url: `${PATH}/${requestId}/redeliver` });
    const answered = await redeliver();
    expect(answered.statusCode).toBe(200);
    expect(adviceJobStatus.parse(answered.json()).state).toBe('delivering');
    const { json } = await untilState(gateway, 'delivered');
    const events = (json.history as Array<{ event: string }>).map((e) => e.event);
    expect(events.slice(events.indexOf('dead'))).toEqual(['dead', 'redelivery_requested', 'delivery_started', 'delivery_attempt', 'delivered']);
    expect(await platform.report('req-advice-1')).toMatchObject({ ai_status: 'succeeded' });

    const again = await redeliver();
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: { kind: 'conflict', message: 'only a dead job can be redelivered; this one is delivered' } });
    expect((await redeliver('req-unknown')).statusCode).toBe(404);
  });

  it('sends unsigned callbacks only when told to: CALLBACK_ALLOW_UNSIGNED=true and no CALLBACK_SECRET', async () => {
    const platform = await startPlatform({ secret: undefined });
    const { gateway } = await gatewayWith(() => ANSWER_ZH, platform, { CALLBACK_SECRET: '', CALLBACK_ALLOW_UNSIGNED: 'true' });
    await submit(gateway);
    await untilState(gateway, 'delivered');
    expect(platform.received[0]!.headers).not.toHaveProperty('webhook-signature');
    expect(await platform.report('req-advice-1')).toMatchObject({ ai_status: 'succeeded' });
  });

  it('keeps an accepted job across a restart and delivers it from the new process', async () => {
    const platform = await startPlatform();
    const dataDir = await mkdtemp(join(tmpdir(), 'advice-restart-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    // A draft still generating when the gateway stops (this scripted engine ignores the abort and ends late).
    const slow = () => new Promise((_resolve, reject) => setTimeout(() => reject(new GatewayError('timeout', 'late')), 300));
    const first = await gatewayWith(slow, platform, {}, { dataDir });
    await submit(first.gateway);
    await untilState(first.gateway, 'running');
    await first.gateway.close();

    const second = await gatewayWith(() => ANSWER_ZH, platform, {}, { dataDir });
    const { json } = await untilState(second.gateway, 'delivered');
    expect(json).toMatchObject({ draft_attempts: 2, outcome: 'succeeded' });
    expect(platform.received).toHaveLength(1);
  });
});
