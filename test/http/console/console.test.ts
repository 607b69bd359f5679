/**
 * The operator's console against a real gateway (the real OCR engine, one worker; a scripted LLM
 * only to have an AI-3 job to deliver): its API through the public HTTP interface, then the page
 * itself in headless Debian chromium. Loopback fetching stays refused (FETCH_ALLOW_LOOPBACK=false):
 * the console's uploads reach the operations through the gateway's own signed links only.
 * Screenshots of each panel go to CONSOLE_SCREENSHOTS_DIR (default: a temporary folder).
 */
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join } from 'node:path';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { adviceJobStatus } from '../../../src/contract/advice.js';
import { createEngines } from '../../../src/engines/registry.js';
import { readyStatus } from '../../../src/engines/readiness.js';
import { FAST_ASR_ENV, asrToolsMissing } from '../../../scripts/lib/audio.js';
import { chromiumMissing, openBrowser, type TestBrowser } from '../../support/browser.js';
import { OCR_ENV, OCR_START_WITHIN_MS, baseUrl, startGateway, type TestGateway } from '../../../scripts/lib/gateway.js';
import { ensureWhisperTestModel } from '../../../scripts/lib/models/whisper-model.js';
import { TEST_MODELS_DIR, fixturePath } from '../../../scripts/lib/paths.js';
import { startPlatform, type Platform } from '../../support/platform.js';
import { speechScript } from '../../support/speech-script.js';
import { ScriptedLlmEngine } from '../../support/test-engines.js';
import { describeWithTools, itWithTools } from '../../support/tools.js';
import { waitFor } from '../../support/wait.js';

// The page's globals, as the functions evaluated in it see them (this project has no DOM types).
declare const sessionStorage: { getItem(key: string): string | null };
declare const localStorage: { length: number };
declare const document: { activeElement: { id: string } | null };
interface CanvasLike {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray };
    drawImage(image: unknown, x: number, y: number): void;
  };
}
declare const OffscreenCanvas: new (width: number, height: number) => CanvasLike;

const TOKEN = 'console-test-token-0123456789';
const CALLBACK_SECRET = 'console-test-callback-secret-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const ADVICE_PATH = '/ai/v1/report-advice-draft';
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS_DIR ?? join(tmpdir(), 'console-screenshots');
const ADVICE_ANSWER = {
  overall: '两科均倾向先行系统治疗。',
  recommendations: [{ advice: '先行新辅助治疗。', departments: ['胸外科'] }],
  open_questions: '',
};

const SPEECH = '嗯，我们看一下影像。右肺上叶见3.2厘米肿块，边缘有毛刺。分期的话，考虑cT2aN2M0，IIIA期。';
const SPEECH_EVIDENCE = ['右肺上叶见3.2厘米肿块，边缘有毛刺', '考虑cT2aN2M0，IIIA期'];
const speechAnswer = speechScript({
  1: { status: 'covered', quote: SPEECH_EVIDENCE[0]! },
  2: { status: 'covered', quote: SPEECH_EVIDENCE[1]! },
});

const asrMissing = await asrToolsMissing();
let gateway: TestGateway;
let platform: Platform;

beforeAll(async () => {
  // The reference receiver, refusing every callback until it recovers.
  platform = await startPlatform({ secret: CALLBACK_SECRET, failFirst: Number.POSITIVE_INFINITY });
  // whisper-cli on the random tiny model, where it is built (the ASR panel's test needs it).
  const whisper = asrMissing === null ? (await ensureWhisperTestModel({ modelsDir: TEST_MODELS_DIR })).path : undefined;
  const env = {
    ...OCR_ENV,
    ...(whisper ? { ...FAST_ASR_ENV, MODELS_DIR: dirname(whisper), WHISPER_MODEL: basename(whisper) } : {}),
    FETCH_ALLOW_LOOPBACK: 'false',
    API_TOKENS: TOKEN,
    CALLBACK_BASE_URL: platform.url,
    CALLBACK_SECRET,
    CALLBACK_RETRY_BASE_MS: '20',
    CALLBACK_RETRY_MAX_DELAY_MS: '100',
    CALLBACK_RETRY_HORIZON_MS: '300',
  };
  const engines = { ...createEngines(loadConfig(env)), llm: new ScriptedLlmEngine((request) =>
      request.schema.safeParse(ADVICE_ANSWER).success ? ADVICE_ANSWER : speechAnswer(request),
    ),
  };
  gateway = await startGateway(env, { engines, listen: true });
  await readyStatus('ocr', () => gateway.app.engineStatus('ocr'), OCR_START_WITHIN_MS);
  if (whisper) await readyStatus('asr', () => gateway.app.engineStatus('asr'), OCR_START_WITHIN_MS);
}, OCR_START_WITHIN_MS);

afterAll(async () => {
  await gateway?.close();
  await platform?.close();
});

async function upload(name: string) {
  const response = await gateway.app.inject({
    method: 'POST',
    url: '/console/api/uploads',
    headers: { ...AUTH, 'content-type': 'application/octet-stream' },
    payload: await readFile(name),
  });
  return { status: response.statusCode, json: response.json<{ file_url: string; path: string; token: string }>() };
}

async function caseOcr(fileUrl: string) {
  const file = { upload_file_id: 1, bucket: 'console', object_key: 'k', file_name: 'report1.png', file_url: fileUrl };
  const response = await gateway.app.inject({ method: 'POST', url: '/ai/v1/case-ocr', headers: AUTH, payload: { request_id: 'console-api-1', files: [file] } });
  return { status: response.statusCode, json: response.json<Record<string, unknown> & { error?: { kind: string } }>() };
}

async function adviceState(requestId: string): Promise<string> {
  const response = await gateway.app.inject({ method: 'GET', url: `${ADVICE_PATH}/${requestId}`, headers: AUTH });
  return adviceJobStatus.parse(response.json()).state;
}

/** An AI-3 job whose callback the platform refused until the retry horizon passed. */
async function deadJob(requestId: string): Promise<void> {
  const body = {
    request_id: requestId,
    cancer_type: '肺癌',
    case_summary: { diagnosis: '右肺腺癌', key_question: '是否手术' },
    dept_opinions: [{ dept: '胸外科', content: '建议手术', supplements: [] }],
  };
  const accepted = await gateway.app.inject({ method: 'POST', url: ADVICE_PATH, headers: AUTH, payload: body });
  expect(accepted.statusCode).toBe(202);
  await waitFor(() => adviceState(requestId), (state) => state === 'dead');
}

const CONSOLE_ASSETS = new URL('../../../src/http/console/assets/', import.meta.url);

describe('the console API', () => {
  it('serves the page, its modules and its styles from local files without a token, same-origin only', async () => {
    const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
    const assets = (await readdir(CONSOLE_ASSETS)).filter((name) => name !== 'index.html');
    expect(assets).toEqual(expect.arrayContaining(['console.js', 'console.css', 'status-panel.js']));
    let bytes = 0;
    for (const [path, type] of [
      ['/console', 'text/html'],
      ...assets.map((name) => [`/console/${name}`, types[extname(name)]!]),
    ]) {
      const response = await gateway.app.inject({ method: 'GET', url: path });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toContain(type);
      expect(response.headers['content-security-policy']).toContain("default-src 'self'");
      // Air-gapped: nothing is loaded from another origin.
      expect(response.body).not.toMatch(/(?:src|href)=["']?(?:https?:)?\/\//);
      expect(response.body).not.toMatch(/@import|url\(\s*["']?https?:/);
      bytes += response.rawPayload.length;
    }
    // A hospital intranet page: HTML, every module (typed in JSDoc comments) and styles together stay small.
    expect(bytes).toBeLessThan(64 * 1024);
  });

  it('answers its data only with a valid bearer token', async () => {
    expect((await gateway.app.inject({ method: 'GET', url: '/console/api/status' })).statusCode).toBe(401);
    const wrong = await gateway.app.inject({ method: 'GET', url: '/console/api/status', headers: { authorization: 'Bearer nope' } });
    expect(wrong.statusCode).toBe(401);
    expect((await gateway.app.inject({ method: 'POST', url: '/console/api/uploads', payload: Buffer.from('x') })).statusCode).toBe(401);
    const redeliver = await gateway.app.inject({ method: 'POST', url: `${ADVICE_PATH}/x/redeliver` });
    expect(redeliver.statusCode).toBe(401);
  });

  it('reports each engine with its model, threads, concurrency and queue, the recent traffic and AI-3 jobs by state', async () => {
    await gateway.app.inject({ method: 'GET', url: `${ADVICE_PATH}/no-such-job`, headers: AUTH });
    const response = await gateway.app.inject({ method: 'GET', url: '/console/api/status', headers: AUTH });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('private, no-store');
    const status = response.json();
    // No page was read yet: no wait to average.
    expect(status.engines.ocr).toMatchObject({ state: 'ready', threads: 1, concurrency: expect.any(Number), running: 0, queued: 0, queue_waits: 0, mean_queue_wait_seconds: 0 });
    expect(status.engines.llm).toMatchObject({ state: 'ready', model: expect.stringContaining('scripted.gguf') });
    expect(status.engines.asr).toMatchObject({ state: asrMissing === null ? 'ready' : expect.any(String), threads: expect.any(Number) });
    expect(status.traffic.perMinute).toHaveLength(15);
    expect(status.traffic.errorKinds.not_found).toBeGreaterThanOrEqual(1);
    expect(status.advice.counts).toMatchObject({ queued: expect.any(Number), dead: expect.any(Number) });
  });

  it('hands an upload to an operation through its own signed link while loopback stays refused, and deletes it', async () => {
    const { status, json } = await upload(fixturePath('ocr', 'report1.png'));
    expect(status).toBe(201);
    expect(json.path).toBe(`/files/${json.token}`);
    const read = await caseOcr(json.file_url);
    expect(read.status).toBe(200);
    expect(read.json.patient_info).toMatchObject({ name: '张三', age: '56' });
    // Two pages at once on the one OCR worker: one of them waits its turn in the queue. (A call
    // that finds a free slot does not wait, and is not counted.)
    const [a, b] = await Promise.all([caseOcr(json.file_url), caseOcr(json.file_url)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const { ocr } = (await gateway.app.inject({ method: 'GET', url: '/console/api/status', headers: AUTH })).json().engines;
    expect(ocr.queue_waits).toBeGreaterThanOrEqual(1);
    expect(ocr.mean_queue_wait_seconds).toBeGreaterThan(0);
    // Only the console's own uploads: any other loopback URL is still refused.
    const other = await caseOcr(`http://127.0.0.1:${new URL(baseUrl(gateway.app)).port}${json.path}`);
    expect(other.json.error?.kind).toBe('forbidden_url');

    const deleted = await gateway.app.inject({ method: 'DELETE', url: `/console/api/uploads/${json.token}`, headers: AUTH });
    expect(deleted.statusCode).toBe(204);
    expect((await gateway.app.inject({ method: 'GET', url: json.path })).statusCode).toBe(404);
    // Gone from the store, its link is fetched like any URL: localhost resolves to loopback, refused.
    expect((await caseOcr(json.file_url)).json.error?.kind).toBe('fetch_failed');
    expect(gateway.logs.join('\n')).not.toMatch(/张三|肺腺癌/);
  }, 60_000);

  it('answers 404 for the received draft of a job the reference receiver holds no report of', async () => {
    const response = await gateway.app.inject({ method: 'GET', url: '/console/api/advice/no-such-job/received', headers: AUTH });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.kind).toBe('not_found');
  });

  it('refuses an upload that is no image, PDF or recording', async () => {
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/console/api/uploads',
      headers: { ...AUTH, 'content-type': 'application/octet-stream' },
      payload: Buffer.from('plain text'),
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().error.kind).toBe('unsupported_media');
  });
});

describeWithTools('the console in headless chromium', await chromiumMissing(), () => {
  let browser: TestBrowser;
  let page: Page;
  let url: string;

  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    browser = await openBrowser('en-GB');
    page = await browser.context.newPage();
    url = `${baseUrl(gateway.app)}/console`;
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
  });

  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `console-${name}.png`), fullPage: true });

  it('asks for a token, refuses a wrong one, and keeps the right one in the tab only', async () => {
    await page.goto(url);
    await page.getByLabel('API token').fill('wrong-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#sign-in-error').textContent()).toBe('The gateway refused this token.');

    // An error for the traffic panel to show.
    await gateway.app.inject({ method: 'GET', url: `${ADVICE_PATH}/no-such-job`, headers: AUTH });
    await page.getByLabel('API token').fill(TOKEN);
    await page.keyboard.press('Enter');
    await page.locator('#engines tr[data-engine=ocr] .state-ready').waitFor();
    expect(await page.evaluate(() => [sessionStorage.getItem('mdt-console-token'), localStorage.length])).toEqual([TOKEN, 0]);
  });

  it('shows every engine with its state, threads and concurrency, and the traffic of the last minutes', async () => {
    const row = page.locator('#engines tr[data-engine=ocr]');
    expect(await row.locator('td').nth(4).textContent()).toBe('1');
    expect(await page.locator('#engines tr[data-engine=llm]').textContent()).toContain('scripted.gguf');
    expect(await page.locator('#traffic-chart .bar').count()).toBe(15);
    expect(await page.locator('#error-kinds').textContent()).toMatch(/Error kinds: .*not_found \d+/);
  });

  it('redelivers a dead AI-3 job and shows it delivered, with its history', async () => {
    await deadJob('console-dead-1');
    platform.recover();
    const row = page.locator('tr[data-request-id=console-dead-1]');
    await row.locator('.state-dead').waitFor({ timeout: 10_000 });
    await shot('status');
    await row.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByText('Redelivery requested.').waitFor();
    await row.locator('.state-delivered').waitFor({ timeout: 10_000 });
    expect(platform.received.filter((callback) => callback.status === 200)).toHaveLength(1);
    await row.getByRole('button', { name: 'History' }).click();
    const history = await page.locator('#job-detail .history').textContent();
    expect(history).toMatch(/dead.*redelivery_requested.*delivered/s);
    expect(await page.locator('#job-detail').textContent()).not.toContain('null');
  }, 30_000);

  /** Runs a try-it panel on `fixture`; the links of the uploads the console deleted after it. */
  async function tryFile(tab: string, fixture: string): Promise<{ outcome: string | null; deleted: string[] }> {
    await page.getByRole('tab', { name: tab }).click();
    const panel = page.locator(`#panel-${tab}`);
    const deleted: string[] = [];
    const onRequest = (request: Request) => {
      const token = /\/console\/api\/uploads\/([^/?]+)$/.exec(request.url())?.[1];
      if (request.method() === 'DELETE' && token) deleted.push(`/files/${decodeURIComponent(token)}`);
    };
    page.on('request', onRequest);
    await panel.locator('input[type=file]').setInputFiles(fixture);
    await panel.getByRole('button', { name: 'Run' }).click();
    await panel.locator('.result[data-done]').waitFor({ timeout: 120_000 });
    page.off('request', onRequest);
    return { outcome: await panel.locator('.result').getAttribute('data-done'), deleted };
  }

  /** The upload is gone after the try: its signed link answers 404. */
  async function expectDeleted(paths: string[]): Promise<void> {
    expect(paths).toHaveLength(1);
    await expect.poll(async () => (await gateway.app.inject({ method: 'GET', url: paths[0]! })).statusCode).toBe(404);
  }

  it('de-identifies a page: the original and the output side by side, the boxes counted, the category named', async () => {
    const { outcome, deleted } = await tryFile('case-file-process', fixturePath('deid', 'pathology-zh-clean.png'));
    expect(outcome).toBe('ok');
    const panel = page.locator('#panel-case-file-process');
    expect(Number(await panel.locator('[data-field=redactions]').textContent())).toBeGreaterThan(0);
    expect(await panel.locator('[data-field=category]').textContent()).toBe('pathology_report');
    const kinds = (await panel.locator('[data-kinds="1"] li').allTextContents()).join(', ');
    expect(kinds).toMatch(/\bname \d+/);
    expect(kinds).toMatch(/\bhospital_id \d+/);
    const [original, output] = await Promise.all([pagePixels('Original, Page 1'), pagePixels('De-identified, Page 1')]);
    expect([original.width, output.width]).toEqual([1100, 1100]);
    // The boxes painted black: the de-identified page is darker than the original.
    expect(output.black).toBeGreaterThan(original.black + 1000);
    await shot('case-file-process');
    await expectDeleted(deleted);
  }, 180_000);

  it('shows a two-page TIFF, which no browser can, page by page: each original beside its de-identified page and its redaction kinds', async () => {
    const { outcome, deleted } = await tryFile('case-file-process', fixturePath('ocr', 'reports-2page.tiff'));
    expect(outcome).toBe('ok');
    const panel = page.locator('#panel-case-file-process');
    expect(await panel.locator('section.page-pair').count()).toBe(2);
    for (const n of [1, 2]) {
      const pair = panel.locator(`section.page-pair[data-page="${n}"]`);
      expect(await pair.getByRole('heading', { level: 3 }).textContent()).toBe(`Page ${n} of 2`);
      expect(await pair.locator(`[data-kinds="${n}"] li`).allTextContents()).toContainEqual(expect.stringMatching(/^name \d+$/));
      const [original, output] = await Promise.all([pagePixels(`Original, Page ${n}`), pagePixels(`De-identified, Page ${n}`)]);
      expect([original.width, output.width]).toEqual([1000, 1000]);
      expect(output.black).toBeGreaterThan(original.black + 500);
    }
    await shot('case-file-process-pages');
    await expectDeleted(deleted);
  }, 180_000);

  /** The picture named `alt` in the case-file-process panel: its width and how many of its pixels are black. */
  function pagePixels(alt: string): Promise<{ width: number; black: number }> {
    return page.locator('#panel-case-file-process').getByRole('img', { name: alt, exact: true }).evaluate((element) => {
      const image = element as unknown as { naturalWidth: number; naturalHeight: number };
      const canvas = new OffscreenCanvas(image.naturalWidth, image.naturalHeight);
      const context = canvas.getContext('2d');
      context.drawImage(image, 0, 0);
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      let black = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i]! < 16 && data[i + 1]! < 16 && data[i + 2]! < 16) black += 1;
      return { width: image.naturalWidth, black };
    });
  }

  it('shows why a page was withheld', async () => {
    const { outcome, deleted } = await tryFile('case-file-process', fixturePath('console', 'pathology-zh-blurred.jpg'));
    expect(outcome).toBe('error');
    const withheld = page.locator('#panel-case-file-process .withheld');
    expect(await withheld.textContent()).toMatch(/Withheld \(deidentification_failed\): .*page 1 was read with confidence \d+, under the 70/);
    await shot('withheld');
    await expectDeleted(deleted);
  }, 180_000);

  it('reads a page: its text and the patient information', async () => {
    const { outcome, deleted } = await tryFile('case-ocr', fixturePath('ocr', 'report1.png'));
    expect(outcome).toBe('ok');
    const panel = page.locator('#panel-case-ocr');
    expect(await panel.locator('[data-field=name]').textContent()).toBe('张三');
    expect(await panel.locator('[data-field=age]').textContent()).toBe('56');
    expect(await panel.locator('.ocr-text').textContent()).toContain('病理诊断报告单');
    // The page, with a red box drawn round each line read: one per line of the text.
    const canvas = panel.locator('canvas.page');
    const text = (await panel.locator('.ocr-text').textContent())!;
    expect(Number(await canvas.getAttribute('data-lines'))).toBe(text.split('\n').length);
    const redPixels = await canvas.evaluate((element) => {
      const { data } = (element as unknown as CanvasLike).getContext('2d').getImageData(0, 0, 10_000, 10_000);
      let red = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i]! > 180 && data[i + 1]! < 60 && data[i + 2]! < 60) red += 1;
      return red;
    });
    expect(redPixels).toBeGreaterThan(1000);
    await shot('case-ocr');
    await expectDeleted(deleted);
    // Nothing the console showed reached the logs.
    expect(gateway.logs.join('\n')).not.toMatch(/张三|肺腺癌|病理诊断/);
  }, 180_000);

  itWithTools('transcribes a recording: the transcript, and segment times that play the audio from there', asrMissing, async () => {
    const { outcome, deleted } = await tryFile('asr', fixturePath('audio', 'jfk.wav'));
    expect(outcome).toBe('ok');
    const panel = page.locator('#panel-asr');
    const segment = panel.locator('.segments button').first();
    const startMs = Number(await segment.getAttribute('data-start-ms'));
    expect(await segment.textContent()).toMatch(/^\d+:\d\d\.\d–\d+:\d\d\.\d$/);
    await segment.click();
    const position = await panel.locator('audio').evaluate((audio) => (audio as unknown as { currentTime: number }).currentTime);
    expect(position).toBeCloseTo(startMs / 1000, 1);
    await shot('asr');
    await expectDeleted(deleted);
  }, 60_000);

  it('judges a speech: covered and missing per point, and each evidence span marked in the speech once complete', async () => {
    await page.getByRole('tab', { name: 'speech-process' }).click();
    const panel = page.locator('#panel-speech-process');
    const run = async (points: string) => {
      await panel.getByLabel('Required points, one a line').fill(points);
      await panel.getByLabel('Speech text').fill(SPEECH);
      await panel.getByRole('button', { name: 'Run' }).click();
      await panel.locator('.result[data-done=ok]').waitFor();
      return panel.locator('.points li').evaluateAll((items) => items.map((item) => item.className));
    };
    expect(await run('影像学表现\n影像学分期\n病理意见')).toEqual(['covered', 'covered', 'missing']);
    expect(await panel.locator('[data-field=complete]').textContent()).toBe('Incomplete');

    expect(await run('影像学表现\n影像学分期')).toEqual(['covered', 'covered']);
    expect(await panel.locator('[data-field=complete]').textContent()).toBe('Complete');
    expect(await panel.locator('.speech mark').allTextContents()).toEqual(SPEECH_EVIDENCE);
    await shot('speech-process');
  });

  it('submits a report advice draft, follows the job until its callback was delivered, and shows the draft the platform received', async () => {
    await page.getByRole('tab', { name: 'report-advice-draft' }).click();
    const panel = page.locator('#panel-report-advice-draft');
    await panel.getByLabel('Diagnosis').fill('右肺腺癌 cT2aN2M0 IIIA期');
    await panel.getByLabel('Key question').fill('是否手术');
    await panel.getByLabel('Department', { exact: true }).fill('胸外科');
    await panel.getByLabel('Its opinion').fill('建议先行新辅助治疗。');
    const delivered = () => platform.received.filter((callback) => callback.status === 200).length;
    const before = delivered();
    await panel.getByRole('button', { name: 'Run' }).click();
    await panel.locator('.result[data-done=ok]').waitFor({ timeout: 20_000 });
    expect(await panel.locator('[data-field=state]').textContent()).toBe('delivered');
    expect(await panel.locator('.history').textContent()).toMatch(/accepted.*drafted.*delivered/s);
    expect(delivered()).toBe(before + 1);
    // The draft as the reference receiver stored it, shown as the platform received it.
    const draft = await panel.locator('[data-field=draft]').textContent();
    expect(draft).toContain('先行新辅助治疗');
    const requestId = /request_id (console-[\w-]+)/.exec((await panel.locator('.result').textContent())!)![1]!;
    expect(await platform.report(requestId)).toMatchObject({ ai_status: 'succeeded', ai_advice_ref: draft });
    await shot('report-advice-draft');
  }, 30_000);

  it('switches to Chinese, and moves between panels with the arrow keys', async () => {
    await page.getByLabel('Language').selectOption('zh');
    expect(await page.locator('h1').textContent()).toBe('MDT AI 网关 · 控制台');
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
    await page.getByRole('tab', { name: '状态' }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-case-file-process');
    expect(await page.locator('#panel-case-file-process').isVisible()).toBe(true);
    await page.keyboard.press('ArrowLeft');
    await page.locator('#panel-status').waitFor();
    await shot('status-zh');
  });
});
