import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { OPERATION_PATHS, VALID_BODIES } from '../support/valid-bodies.js';
import { FakeAsrEngine, enginesWithAsr } from '../support/test-engines.js';
import { startFileServer, type FileServer } from '../../scripts/lib/file-server.js';
import { WAV_BYTES } from '../support/media-bytes.js';

describe('/healthz and /readyz', () => {
  let modelsDir: string;
  beforeAll(async () => {
    modelsDir = await mkdtemp(join(tmpdir(), 'models-'));
    await writeFile(join(modelsDir, 'present.gguf'), 'GGUF');
  });
  afterAll(() => rm(modelsDir, { recursive: true, force: true }));

  it('is ready with no engine configured, and lists every engine with its reason and the store', async () => {
    const gateway = await startGateway();
    try {
      expect((await gateway.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
      const ready = await gateway.app.inject({ url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      const { engines } = ready.json();
      expect(Object.keys(engines).sort()).toEqual(['asr', 'llm', 'ocr']);
      expect(engines.llm).toMatchObject({ state: 'unavailable', configured: false, reason: expect.stringContaining('LLM_MODEL') });
      expect(ready.json().store).toEqual({ state: 'ready' });
    } finally {
      await gateway.close();
    }
  });

  it('is not ready while a configured engine is unavailable, and says why', async () => {
    const gateway = await startGateway({ MODELS_DIR: modelsDir, LLM_MODEL: 'missing.gguf' });
    try {
      const ready = await gateway.app.inject({ url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().engines.llm).toMatchObject({
        state: 'unavailable',
        configured: true,
        reason: expect.stringContaining('model file not found: missing.gguf'),
      });
      const speech = await gateway.app.inject({ method: 'POST', url: '/ai/v1/speech-process', payload: VALID_BODIES['/ai/v1/speech-process'] });
      expect(speech.statusCode).toBe(503);
      expect(speech.json().error).toMatchObject({ kind: 'engine_unavailable', retryable: false });
      expect(speech.json().error.message).toContain('missing.gguf');
    } finally {
      await gateway.close();
    }
  });

  it('is not ready with LLM_BACKEND=openai and a setting it needs missing, and says which', async () => {
    const gateway = await startGateway({ LLM_BACKEND: 'openai', LLM_BASE_URL: 'http://127.0.0.1:8000/v1' });
    try {
      const ready = await gateway.app.inject({ url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().engines.llm).toMatchObject({ state: 'unavailable', configured: true, reason: 'LLM_BACKEND is openai but LLM_MODEL_NAME is not set', threads: 0 });
    } finally {
      await gateway.close();
    }
  });

  it('is ready when every configured engine is ready', async () => {
    const gateway = await startGateway({}, { engines: enginesWithAsr(new FakeAsrEngine()) });
    try {
      const ready = await gateway.app.inject({ url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json().engines.asr.state).toBe('ready');
    } finally {
      await gateway.close();
    }
  });
});

describe('/metrics', () => {
  it('counts requests by operation, status and error kind, with latency, queue and engine state series', async () => {
    const gateway = await startGateway();
    try {
      await gateway.app.inject({ method: 'POST', url: '/ai/v1/asr', payload: VALID_BODIES['/ai/v1/asr'] });
      await gateway.app.inject({ method: 'POST', url: '/ai/v1/asr', payload: {} });
      const metrics = await gateway.app.inject({ url: '/metrics' });
      expect(metrics.headers['content-type']).toContain('text/plain');
      const text = metrics.body;
      expect(text).toContain('gateway_http_requests_total{operation="asr",status="503",error_kind="engine_unavailable"} 1');
      expect(text).toContain('gateway_http_requests_total{operation="asr",status="400",error_kind="invalid_request"} 1');
      expect(text).toMatch(/gateway_http_request_duration_seconds_count\{operation="asr"\} 2/);
      expect(text).toContain('gateway_engine_queue_depth{engine="llm"} 0');
      expect(text).toContain('gateway_engine_state{engine="llm",state="unavailable"} 1');
      expect(text).toContain('gateway_engine_state{engine="llm",state="ready"} 0');
      expect(text).toContain('gateway_process_resident_memory_bytes');
    } finally {
      await gateway.close();
    }
  });

  it('reports engine readiness and the resident memory of the child processes, by command', async () => {
    const gateway = await startGateway({}, { engines: enginesWithAsr(new FakeAsrEngine()) });
    // A child of this process, as whisper-cli or the LLM process is of the gateway's.
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await once(child, 'spawn');
      const text = (await gateway.app.inject({ url: '/metrics' })).body;
      expect(text).toContain('gateway_engine_ready{engine="asr"} 1');
      expect(text).toContain('gateway_engine_ready{engine="llm"} 0');
      expect(text).toContain('gateway_child_processes{command="sleep"} 1');
      const resident = /gateway_child_process_resident_memory_bytes\{command="sleep"\} (\d+)/.exec(text);
      expect(Number(resident?.[1])).toBeGreaterThan(100 * 1024); // even sleep maps its libc
      child.kill('SIGKILL');
      await once(child, 'exit');
      const after = (await gateway.app.inject({ url: '/metrics' })).body;
      expect(after).not.toContain('command="sleep"');
    } finally {
      child.kill('SIGKILL');
      await gateway.close();
    }
  });
});

describe('patient data never reaches the logs', () => {
  const SENTINEL = 'SENTINEL患者王小明13800138000';
  let gateway: TestGateway;
  let engine: FakeAsrEngine;
  let files: FileServer;

  beforeAll(async () => {
    files = await startFileServer((request, response) => {
      if (request.url?.startsWith('/voice')) response.end(WAV_BYTES);
      else response.writeHead(404).end();
    });
    engine = new FakeAsrEngine();
    gateway = await startGateway({ FETCH_ALLOW_LOOPBACK: 'true' }, { engines: enginesWithAsr(engine) });
  });
  afterAll(async () => {
    await gateway.close();
    await files.close();
  });

  function withSentinel(path: (typeof OPERATION_PATHS)[number]): Record<string, unknown> {
    const body = structuredClone(VALID_BODIES[path]) as Record<string, unknown>;
    const file = { upload_file_id: 9, bucket: SENTINEL, object_key: SENTINEL, file_name: `${SENTINEL}.jpg`, file_url: files.url(`/${encodeURIComponent(SENTINEL)}.jpg`) };
    const perOperation: Record<string, Record<string, unknown>> = {
      '/ai/v1/speech-process': { speech_text: SENTINEL, points: [{ seq: 1, name: SENTINEL }], cancer_type: SENTINEL },
      '/ai/v1/report-advice-draft': {
        case_summary: { diagnosis: SENTINEL, key_question: SENTINEL },
        dept_opinions: [{ dept: '胸外科', content: SENTINEL, supplements: [{ doctor: SENTINEL, content: SENTINEL }] }],
      },
      '/ai/v1/case-file-process': { files: [file] },
      '/ai/v1/case-ocr': { files: [file] },
      '/ai/v1/asr': { voice_url: files.url(`/voice/${encodeURIComponent(SENTINEL)}.wav?name=${encodeURIComponent(SENTINEL)}`) },
    };
    return { ...body, ...perOperation[path] };
  }

  it('through every operation: valid bodies, invalid bodies, malformed JSON and engine output', async () => {
    const answeredWith: Record<string, number> = {};
    for (const path of OPERATION_PATHS) {
      const body = withSentinel(path);
      const pending = gateway.app.inject({ method: 'POST', url: path, payload: body });
      if (path === '/ai/v1/asr') {
        const calls = await engine.waitForCalls(1);
        calls[0]!.finish({ text: SENTINEL, segments: [{ startMs: 0, endMs: 10, text: SENTINEL }] });
      }
      answeredWith[path] = (await pending).statusCode;
      await gateway.app.inject({ method: 'POST', url: path, payload: { ...body, request_id: 42 } });
      await gateway.app.inject({ method: 'POST', url: path, payload: `{"speech_text": "${SENTINEL}"`, headers: { 'content-type': 'application/json' } });
      await gateway.app.inject({ method: 'POST', url: path, payload: SENTINEL, headers: { 'content-type': 'text/plain' } });
    }
    // Each valid body was taken in and answered as this gateway can: ASR by its engine, the others
    // unavailable (no LLM, no OCR here) after validation.
    expect(answeredWith).toEqual({
      '/ai/v1/speech-process': 503,
      '/ai/v1/report-advice-draft': 503,
      '/ai/v1/case-file-process': 503,
      '/ai/v1/case-ocr': 503,
      '/ai/v1/asr': 200,
    });
    const asrLine = gateway.logs.find((line) => line.includes('"route":"/ai/v1/asr"') && line.includes('"status":200'));
    expect(asrLine, 'the successful ASR request was logged').toBeDefined();
    expect(JSON.parse(asrLine!)).toMatchObject({ request_id: 'req-5', operation: 'asr', status: 200 });
    expect(gateway.logs.length).toBeGreaterThanOrEqual(OPERATION_PATHS.length * 4);
    const leaked = gateway.logs.filter((line) => line.includes('SENTINEL') || line.includes('王小明') || line.includes('13800138000'));
    expect(leaked).toEqual([]);
  });
});
