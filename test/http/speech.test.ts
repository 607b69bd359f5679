import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStores } from '../../src/platform/store/index.js';
import { speechProcessResponse } from '../../src/contract/speech.js';
import { GatewayError } from '../../src/errors.js';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { ScriptedLlmEngine, type ScriptedAnswer } from '../support/test-engines.js';
import { enginesWith } from '../../scripts/lib/stand-in-engines.js';
import { readJudgePrompt, speechScript } from '../support/speech-script.js';

const PATH = '/ai/v1/speech-process';
const SPEECH = '嗯，我们看一下影像。右肺上叶见3.2厘米肿块，边缘有毛刺，纵隔4R区淋巴结肿大。分期的话，考虑cT2aN2M0，IIIA期。病理方面本科室无补充。';
const POINTS = [
  { seq: 1, name: '影像学表现' },
  { seq: 2, name: '影像学分期' },
  { seq: 3, name: '病理意见' },
];
const body = (changes: Record<string, unknown> = {}) => ({
  request_id: 'req-speech-1',
  cancer_type: '肺癌',
  standard_department_code: 'RAD',
  points: POINTS,
  speech_text: SPEECH,
  ...changes,
});

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((g) => g.close()));
});

async function gatewayWith(answer: ScriptedAnswer, options: { contextTokens?: number; model?: string; dataDir?: string } = {}) {
  const engine = new ScriptedLlmEngine(answer, options);
  const gateway = await startGateway({}, { engines: enginesWith({ llm: engine }), ...(options.dataDir ? { dataDir: options.dataDir, keepDataDir: true } : {}) });
  running.push(gateway);
  const post = async (payload: Record<string, unknown>) => {
    const response = await gateway.app.inject({ method: 'POST', url: PATH, payload });
    return { status: response.statusCode, json: response.json() };
  };
  return { engine, gateway, post };
}

const FULL_CLAIMS = {
  1: { status: 'covered' as const, quote: '右肺上叶见3.2厘米肿块，边缘有毛刺，纵隔4R区淋巴结肿大。' },
  2: { status: 'covered' as const, quote: '考虑cT2aN2M0，IIIA期' },
  3: { status: 'not_applicable' as const, quote: '病理方面本科室无补充' },
};

describe('speech-process with a scripted model', () => {
  it('covers every point with verbatim evidence, counts not-applicable as covered, and organizes', async () => {
    const { post, engine } = await gatewayWith(speechScript(FULL_CLAIMS));
    const { status, json } = await post(body());
    expect(status).toBe(200);
    expect(speechProcessResponse.safeParse(json).success).toBe(true);
    expect(json).toMatchObject({ request_id: 'req-speech-1', is_complete: true, covered: POINTS, missing: [], from_cache: false });
    expect(json.organized.structured).toEqual([
      { seq: 1, point: '影像学表现', value: 'value-1', source_text: '右肺上叶见3.2厘米肿块，边缘有毛刺，纵隔4R区淋巴结肿大', voices: [] },
      { seq: 2, point: '影像学分期', value: 'value-2', source_text: FULL_CLAIMS[2].quote, voices: [] },
      { seq: 3, point: '病理意见', value: 'value-3', source_text: FULL_CLAIMS[3].quote, voices: [] },
    ]);
    expect(json.organized.conclusion).toBe('结论：同意。');
    expect(json.processor_version.prompt).toMatch(/^speech-v1@[0-9a-f]{12}$/);
    expect(json.processor_version.model).toBe('scripted.gguf@000000000000');
    expect(engine.requests).toHaveLength(2);
  });

  it('a quote that is not in the speech is no evidence: the point is missing and nothing is organized', async () => {
    const { post, engine } = await gatewayWith(
      speechScript({ ...FULL_CLAIMS, 2: { status: 'covered', quote: '患者分期为IV期，已有骨转移', visibleWhen: '' } }),
    );
    const { json } = await post(body());
    expect(json).toMatchObject({ is_complete: false, covered: [POINTS[0], POINTS[2]], missing: [POINTS[1]], organized: null });
    expect(engine.requests).toHaveLength(1);
  });

  it('repairs a quote that differs in punctuation, spacing and width to the verbatim span', async () => {
    const { post } = await gatewayWith(
      speechScript({ ...FULL_CLAIMS, 1: { status: 'covered', quote: '右肺上叶见３.２厘米肿块 边缘有毛刺 纵隔４Ｒ区淋巴结肿大', visibleWhen: '' } }),
    );
    const { json } = await post(body());
    expect(json.organized.structured[0].source_text).toBe('右肺上叶见3.2厘米肿块，边缘有毛刺，纵隔4R区淋巴结肿大');
  });

  it('repairs a slightly paraphrased quote to the closest span, in unpunctuated ASR text', async () => {
    const asr = '嗯我们看一下影像右肺上叶见三点二厘米肿块边缘有毛刺纵隔淋巴结肿大分期考虑T2aN2M0三A期病理方面本科室无补充';
    const { post } = await gatewayWith(
      speechScript({
        1: { status: 'covered', quote: '右肺上叶有三点二厘米的肿块，边缘有毛刺', visibleWhen: '' },
        2: { status: 'covered', quote: '分期考虑T2aN2M0三A期', visibleWhen: '' },
        3: { status: 'not_applicable', quote: '病理方面本科室无补充', visibleWhen: '' },
      }),
    );
    const { json } = await post(body({ speech_text: asr }));
    expect(json.is_complete).toBe(true);
    const source = json.organized.structured[0].source_text as string;
    expect(asr).toContain(source);
    expect(source).toContain('三点二厘米肿块');
  });

  it('evidence that only repeats the point name does not cover it', async () => {
    const speech = '影像学分期，我们再讨论。右肺上叶见肿块，边缘有毛刺。病理方面本科室无补充。';
    const { post } = await gatewayWith(
      speechScript({
        1: { status: 'covered', quote: '右肺上叶见肿块，边缘有毛刺', visibleWhen: '' },
        2: { status: 'covered', quote: '影像学分期', visibleWhen: '' },
        3: FULL_CLAIMS[3],
      }),
    );
    const { json } = await post(body({ speech_text: speech }));
    expect(json.missing).toEqual([POINTS[1]]);
  });

  it('holds the invariants whatever the model answers: unknown seqs, empty quotes, a quote on a missing point, reordered points', async () => {
    const points = [{ seq: 7, name: '影像学表现' }, { seq: 3, name: '病理意见' }, { seq: 5, name: '影像学分期' }];
    const { post } = await gatewayWith((request) =>
      readJudgePrompt(request)
        ? {
            '99': { status: 'covered', quote: '右肺上叶见3.2厘米肿块' },
            '3': { status: 'covered', quote: '病理方面本科室无补充' },
            '7': { status: 'covered', quote: '' },
            '5': { status: 'missing', quote: '考虑cT2aN2M0，IIIA期' },
          }
        : { values: {}, conclusion: '' },
    );
    const { json } = await post(body({ points }));
    expect(json.covered).toEqual([points[1]]);
    expect(json.missing).toEqual([points[0], points[2]]);
    expect(json.is_complete).toBe(false);
    expect(json.organized).toBeNull();
  });

  it('falls back to the doctor\'s words and a joined conclusion when the model leaves them empty', async () => {
    const { post } = await gatewayWith(speechScript(FULL_CLAIMS, { valuePrefix: null, conclusion: '' }));
    const { json } = await post(body());
    expect(json.organized.structured.map((s: { value: string }) => s.value)).toEqual([
      '右肺上叶见3.2厘米肿块，边缘有毛刺，纵隔4R区淋巴结肿大',
      FULL_CLAIMS[2].quote,
      FULL_CLAIMS[3].quote,
    ]);
    expect(json.organized.conclusion).toContain('影像学表现：');
  });

  it('lists the voice_url of every segment that overlaps the evidence', async () => {
    const segments = [
      { voice_url: 'http://voice/1.wav', start_ms: 0, end_ms: 4000, text: '嗯，我们看一下影像。右肺上叶见3.2厘米肿块，' },
      { voice_url: 'http://voice/2.wav', start_ms: 4000, end_ms: 8000, text: '边缘有毛刺，纵隔4R区淋巴结肿大。' },
      { voice_url: 'http://voice/3.wav', start_ms: 8000, end_ms: 12000, text: '分期的话，考虑cT2aN2M0，IIIA期。' },
      { voice_url: 'http://voice/4.wav', start_ms: 12000, end_ms: 15000, text: '病理方面本科室无补充。' },
    ];
    const { post } = await gatewayWith(speechScript(FULL_CLAIMS));
    const { json } = await post(body({ voice_segments: segments }));
    expect(json.organized.structured.map((s: { voices: string[] }) => s.voices)).toEqual([
      ['http://voice/1.wav', 'http://voice/2.wav'],
      ['http://voice/3.wav'],
      ['http://voice/4.wav'],
    ]);
  });

  it('judges a long speech in overlapping windows and merges the evidence found in different windows', async () => {
    const filler = '我们再补充一些病史情况，患者一般情况可，无明显不适。'.repeat(60);
    const speech = `右肺上叶见3.2厘米肿块，边缘有毛刺。${filler}考虑cT2aN2M0，IIIA期。${filler}病理方面本科室无补充。`;
    const claims = { ...FULL_CLAIMS, 1: { status: 'covered' as const, quote: '右肺上叶见3.2厘米肿块，边缘有毛刺。' } };
    const { post, engine } = await gatewayWith(speechScript(claims), { contextTokens: 1200 });
    const { json } = await post(body({ speech_text: speech }));
    const judgeCalls = engine.requests.filter((r) => readJudgePrompt(r));
    expect(judgeCalls.length).toBeGreaterThan(2);
    for (const call of judgeCalls) expect(readJudgePrompt(call)!.window.length).toBeLessThan(speech.length);
    expect(json.is_complete).toBe(true);
    expect(json.organized.structured.map((s: { source_text: string }) => s.source_text)).toEqual([
      '右肺上叶见3.2厘米肿块，边缘有毛刺',
      FULL_CLAIMS[2].quote,
      FULL_CLAIMS[3].quote,
    ]);
  });

  it('judges many points in batches and keeps them in request order', async () => {
    const points = Array.from({ length: 23 }, (_, i) => ({ seq: i + 1, name: `要点${i + 1}` }));
    const speech = points.map((p) => `第${p.seq}项内容是数值${p.seq * 7}毫克。`).join('');
    const claims = Object.fromEntries(points.map((p) => [p.seq, { status: 'covered' as const, quote: `第${p.seq}项内容是数值${p.seq * 7}毫克` }]));
    const { post, engine } = await gatewayWith(speechScript(claims));
    const { json } = await post(body({ points, speech_text: speech }));
    expect(json.covered).toEqual(points);
    expect(json.organized.structured).toHaveLength(23);
    expect(json.organized.conclusion).toBe('结论：同意。');
    const judgeCalls = engine.requests.filter((r) => readJudgePrompt(r));
    expect(judgeCalls.map((r) => readJudgePrompt(r)!.seqs.length)).toEqual([6, 6, 6, 5]);
  });

  it('keeps at most two model calls in flight, so a long request does not overflow a short LLM queue', async () => {
    const points = Array.from({ length: 20 }, (_, i) => ({ seq: i + 1, name: `要点${i + 1}` }));
    const speech = points.map((p) => `第${p.seq}项内容是数值${p.seq * 7}毫克。`).join('');
    const claims = Object.fromEntries(points.map((p) => [p.seq, { status: 'covered' as const, quote: `第${p.seq}项内容是数值${p.seq * 7}毫克` }]));
    const script = speechScript(claims);
    let inFlight = 0;
    let most = 0;
    const engine = new ScriptedLlmEngine(async (request) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return script(request);
    });
    const gateway = await startGateway({ LLM_PARALLEL: '2', LLM_MAX_QUEUED: '1' }, { engines: enginesWith({ llm: engine }) });
    running.push(gateway);
    const response = await gateway.app.inject({ method: 'POST', url: PATH, payload: body({ points, speech_text: speech }) });
    expect(response.statusCode).toBe(200);
    expect(response.json().is_complete).toBe(true);
    expect(engine.requests.length).toBe(9); // 4 judge batches, 4 organize batches, 1 conclusion
    expect(most).toBe(2);
  });

  it('handles English speech', async () => {
    const speech = 'On CT there is a 3.2 cm spiculated mass in the right upper lobe. Stage is cT2aN2M0, IIIA. Nothing to add on pathology from our side.';
    const { post } = await gatewayWith(
      speechScript({
        1: { status: 'covered', quote: 'a 3.2 cm spiculated mass in the right upper lobe' },
        2: { status: 'covered', quote: 'Stage is cT2aN2M0, IIIA' },
        3: { status: 'not_applicable', quote: 'Nothing to add on pathology from our side' },
      }),
    );
    const { json } = await post(body({ speech_text: speech, points: [{ seq: 1, name: 'Imaging findings' }, { seq: 2, name: 'Stage' }, { seq: 3, name: 'Pathology' }] }));
    expect(json.is_complete).toBe(true);
    expect(json.organized.structured[1].source_text).toBe('Stage is cT2aN2M0, IIIA');
  });

  it('answers a model failure with the engine error', async () => {
    const { post } = await gatewayWith(() => {
      throw new GatewayError('engine_failed', 'the LLM process exited (signal SIGKILL); restarting', { retryable: true });
    });
    const { status, json } = await post(body());
    expect(status).toBe(500);
    expect(json.error).toMatchObject({ kind: 'engine_failed', retryable: true });
  });
});

describe('caching and versioning', () => {
  it('answers the same request again from the store, also after a restart, and a new model gets a new key', async () => {
    const first = await gatewayWith(speechScript(FULL_CLAIMS));
    const original = (await first.post(body())).json;
    const dataDir = first.gateway.dataDir;

    const again = (await first.post(body({ request_id: 'req-speech-2' }))).json;
    expect(again).toEqual({ ...original, request_id: 'req-speech-2', from_cache: true });
    expect(first.engine.requests).toHaveLength(2);

    const restarted = await gatewayWith(speechScript({}), { dataDir });
    const afterRestart = (await restarted.post(body({ request_id: 'req-speech-3' }))).json;
    expect(afterRestart).toMatchObject({ from_cache: true, artifact_key: original.artifact_key, is_complete: true });
    expect(restarted.engine.requests).toHaveLength(0);

    const newModel = await gatewayWith(speechScript(FULL_CLAIMS), { dataDir, model: 'other.gguf@111111111111' });
    const recomputed = (await newModel.post(body())).json;
    expect(recomputed.from_cache).toBe(false);
    expect(recomputed.artifact_key).not.toBe(original.artifact_key);
    expect(recomputed.processor_version.model).toBe('other.gguf@111111111111');
  });

  it('a different speech or point set is a different artifact', async () => {
    const { post } = await gatewayWith(speechScript(FULL_CLAIMS));
    const a = (await post(body())).json.artifact_key;
    const b = (await post(body({ speech_text: `${SPEECH} ` }))).json.artifact_key;
    const c = (await post(body({ points: POINTS.slice(0, 2) }))).json.artifact_key;
    expect(new Set([a, b, c]).size).toBe(3);
  });
});

describe('the result cache keeps results ARTIFACT_RETENTION_DAYS', () => {
  it('deletes the results made before the retention when the gateway starts, and keeps the newer ones', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'artifact-retention-'));
    const stores = await openStores({ dataDir, publicBaseUrl: 'http://localhost' });
    const day = 24 * 60 * 60 * 1000;
    try {
      await stores.artifacts.put('speech:old', { n: 1 });
      await stores.artifacts.put('speech:recent', { n: 2 });
      const db = new Database(join(dataDir, 'gateway.sqlite'));
      const age = db.prepare('UPDATE artifacts SET created_at = ? WHERE key = ?');
      age.run(Date.now() - 2 * day - 60_000, 'speech:old');
      age.run(Date.now() - day, 'speech:recent');
      db.close();

      const gateway = await startGateway({ ARTIFACT_RETENTION_DAYS: '2' }, { dataDir });
      try {
        await expect.poll(() => stores.artifacts.get('speech:old')).toBeNull();
        expect(await stores.artifacts.get('speech:recent')).toMatchObject({ value: { n: 2 } });
        expect(gateway.logs.some((line) => line.includes('cached results past ARTIFACT_RETENTION_DAYS deleted'))).toBe(true);
      } finally {
        await gateway.close();
      }
    } finally {
      await stores.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
