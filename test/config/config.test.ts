import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type LimiterSettings } from '../../src/config/index.js';
import { REPO_ROOT } from '../../scripts/lib/paths.js';
import { webhookSecretFor } from '../../scripts/lib/secrets.js';

const SECRET = webhookSecretFor('config');

/** Runs loadConfig expecting a ConfigError and returns it. */
function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig defaults', () => {
  it('an empty environment gives the documented defaults', () => {
    const config = loadConfig({});
    expect(config.server).toEqual({
      host: '127.0.0.1',
      port: 8080,
      dataDir: './data',
      databaseUrl: undefined,
      databasePoolSize: 8,
      publicBaseUrl: 'http://localhost:8080',
      logLevel: 'info',
      artifactRetentionDays: 7,
      auditRetentionDays: 180,
      bodyLimitBytes: 2 * 1024 * 1024,
      requestTimeoutMs: 120_000,
      headersTimeoutMs: 30_000,
      keepAliveTimeoutMs: 72_000,
      maxConnections: 1024,
      shutdownTimeoutMs: 30_000,
    });
    expect(config.models).toEqual({ dir: './models', verify: true, manifestPath: join(REPO_ROOT, 'models', 'manifest.json') });
    expect(config.security).toEqual({
      apiTokens: [],
      operatorTokens: [],
      allowOpenAccess: false,
      fileSigningSecret: undefined,
      fileUrlTtlSeconds: 86_400,
    });
    expect(config.asr).toEqual({
      model: undefined,
      vadModel: undefined,
      whisperBin: join(REPO_ROOT, '.build', 'whisper', 'bin', 'whisper-cli'),
      ffmpegBin: 'ffmpeg',
      language: 'zh',
      maxRunning: 1,
      threads: availableParallelism(),
      beamSize: 5,
      temperatureFallback: true,
      maxAudioSeconds: 7200,
      maxBytes: 200 * 1024 * 1024,
      timeoutFactor: 2,
      maxQueued: 16,
      queueTimeoutMs: 300_000,
    });
    expect(config.llm).toEqual({
      backend: 'local',
      model: undefined,
      baseUrl: undefined,
      apiKey: undefined,
      modelName: undefined,
      parallel: 2,
      threads: availableParallelism(),
      gpu: 'auto',
      gpuLayers: 'auto',
      contextSize: 4096,
      timeoutMs: 120_000,
      maxRunning: 2,
      maxQueued: 32,
      queueTimeoutMs: 120_000,
    });
    expect(config.callback).toEqual({
      baseUrl: undefined,
      secret: undefined,
      allowUnsigned: false,
      timeoutMs: 10_000,
      retryBaseMs: 1_000,
      retryMaxDelayMs: 3_600_000,
      retryHorizonMs: 86_400_000,
    });
    expect(config.advice).toEqual({ maxRunning: 1, draftAttempts: 3, timeoutMs: 600_000, leaseMs: 30_000, retentionDays: 7 });
    expect(config.fetch).toEqual({
      allowHosts: [],
      allowLoopback: false,
      maxBytes: 50 * 1024 * 1024,
      maxInFlightBytes: 200 * 1024 * 1024,
      queueTimeoutMs: 30_000,
      connectTimeoutMs: 5_000,
      totalTimeoutMs: 60_000,
    });
  });

  it('limiter defaults differ per engine', () => {
    const config = loadConfig({});
    const limiter = ({ maxRunning, maxQueued, queueTimeoutMs }: LimiterSettings) => ({ maxRunning, maxQueued, queueTimeoutMs });
    expect(limiter(config.llm)).toEqual({ maxRunning: 2, maxQueued: 32, queueTimeoutMs: 120_000 });
    expect(limiter(config.ocr)).toEqual({ maxRunning: availableParallelism(), maxQueued: 64, queueTimeoutMs: 120_000 });
    expect(limiter(config.asr)).toEqual({ maxRunning: 1, maxQueued: 16, queueTimeoutMs: 300_000 });
  });

  it('PUBLIC_BASE_URL defaults to localhost on the configured PORT', () => {
    expect(loadConfig({ PORT: '9123' }).server.publicBaseUrl).toBe('http://localhost:9123');
  });

  it('empty strings count as unset', () => {
    const config = loadConfig({
      HOST: '',
      PORT: '',
      MODELS_DIR: '',
      DATA_DIR: '',
      PUBLIC_BASE_URL: '',
      CALLBACK_BASE_URL: '',
      CALLBACK_SECRET: '',
      FILE_SIGNING_SECRET: '',
      API_TOKENS: '',
      FETCH_ALLOW_LOOPBACK: '',
      LOG_LEVEL: '',
      LLM_MODEL: '',
      WHISPER_MODEL: '',
      LLM_MAX_RUNNING: '',
      OCR_MAX_QUEUED: '',
    });
    expect(config).toEqual(loadConfig({}));
  });

  it('reads explicit values', () => {
    const config = loadConfig({
      HOST: '127.0.0.1',
      PORT: '3000',
      MODELS_DIR: '/opt/models',
      DATA_DIR: '/var/lib/gateway',
      LOG_LEVEL: 'debug',
      SHUTDOWN_TIMEOUT_MS: '500',
      LLM_MODEL: 'qwen.gguf',
      WHISPER_MODEL: 'ggml-base.bin',
      LLM_MAX_RUNNING: '4',
      OCR_MAX_QUEUED: '0',
      ASR_QUEUE_TIMEOUT_MS: '1000',
      DATABASE_URL: 'postgres://gateway:secret@db.hospital.local:5432/gateway',
    });
    expect(config.server).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      dataDir: '/var/lib/gateway',
      databaseUrl: 'postgres://gateway:secret@db.hospital.local:5432/gateway',
      logLevel: 'debug',
      shutdownTimeoutMs: 500,
      publicBaseUrl: 'http://localhost:3000',
    });
    expect(config.models.dir).toBe('/opt/models');
    expect(config.llm.model).toBe('qwen.gguf');
    expect(config.llm.maxRunning).toBe(4);
    expect(config.ocr.maxQueued).toBe(0);
    expect(config.asr.queueTimeoutMs).toBe(1000);
    expect(config.asr.model).toBe('ggml-base.bin');
  });

  it('ASR_MAX_RUNNING runs that many ASR jobs at once and splits the cores between them', () => {
    const config = loadConfig({ ASR_MAX_RUNNING: '2' });
    expect(config.asr.maxRunning).toBe(2);
    expect(config.asr.threads).toBe(Math.max(1, Math.floor(availableParallelism() / 2)));
    expect(loadConfig({ ASR_MAX_RUNNING: '2', ASR_THREADS: '3' }).asr.threads).toBe(3);
  });

  it('reads the ASR settings', () => {
    const config = loadConfig({
      WHISPER_BIN: '/opt/whisper/whisper-cli',
      FFMPEG_BIN: '/usr/local/bin/ffmpeg',
      WHISPER_VAD_MODEL: 'ggml-silero-v5.1.2.bin',
      ASR_LANGUAGE: 'auto',
      ASR_BEAM_SIZE: '1',
      ASR_TEMPERATURE_FALLBACK: 'false',
      ASR_MAX_AUDIO_SECONDS: '3600',
      ASR_MAX_BYTES: '1000',
      ASR_TIMEOUT_FACTOR: '0.5',
    });
    expect(config.asr).toMatchObject({
      whisperBin: '/opt/whisper/whisper-cli',
      ffmpegBin: '/usr/local/bin/ffmpeg',
      vadModel: 'ggml-silero-v5.1.2.bin',
      language: 'auto',
      beamSize: 1,
      temperatureFallback: false,
      maxAudioSeconds: 3600,
      timeoutFactor: 0.5,
    });
    expect(config.asr.maxBytes).toBe(1000);
  });
});

describe('loadConfig parsing', () => {
  it('API_TOKENS is a CSV list of name=token: spaces trimmed, empty items dropped, a token may hold =', () => {
    const tokens = loadConfig({ API_TOKENS: ' platform = alpha-0123456789abcdef , ,his.ward-2=beta-0123456789abcdef==,' }).security.apiTokens;
    expect(tokens).toEqual([
      { name: 'platform', token: 'alpha-0123456789abcdef', role: 'client', unnamed: false },
      { name: 'his.ward-2', token: 'beta-0123456789abcdef==', role: 'client', unnamed: false },
    ]);
    expect(loadConfig({ API_TOKENS: ' , ,' }).security.apiTokens).toEqual([]);
  });

  it('reads a bare API_TOKENS entry (the form before 0.2) as a token named by its position', () => {
    const tokens = loadConfig({ API_TOKENS: 'platform=alpha-0123456789abcdef,beta-0123456789abcdef' }).security.apiTokens;
    expect(tokens[1]).toEqual({ name: 'token 2', token: 'beta-0123456789abcdef', role: 'client', unnamed: true });
  });

  it('OPERATOR_TOKENS names every token', () => {
    const config = loadConfig({ OPERATOR_TOKENS: 'it-desk=opera-0123456789abcdef' });
    expect(config.security.operatorTokens).toEqual([{ name: 'it-desk', token: 'opera-0123456789abcdef', role: 'operator', unnamed: false }]);
    expect(configError({ OPERATOR_TOKENS: 'opera-0123456789abcdef' }).problems).toEqual(['OPERATOR_TOKENS: entry 1 has no name: write it name=token']);
  });

  it('FETCH_ALLOW_HOSTS is a CSV list: spaces trimmed, empty items dropped', () => {
    expect(loadConfig({ FETCH_ALLOW_HOSTS: 'minio.local, 10.0.0.5 ,,files.internal' }).fetch.allowHosts).toEqual([
      'minio.local',
      '10.0.0.5',
      'files.internal',
    ]);
  });

  it.each([
    ['true', true],
    ['false', false],
  ])('FETCH_ALLOW_LOOPBACK=%s is %s', (value, expected) => {
    expect(loadConfig({ FETCH_ALLOW_LOOPBACK: value }).fetch.allowLoopback).toBe(expected);
  });

  it.each(['yes', 'TRUE', 'enabled', '2'])('FETCH_ALLOW_LOOPBACK=%s is an error naming the variable', (value) => {
    expect(configError({ FETCH_ALLOW_LOOPBACK: value }).message).toContain('FETCH_ALLOW_LOOPBACK');
  });

  it('trailing slashes are removed from PUBLIC_BASE_URL and CALLBACK_BASE_URL', () => {
    const config = loadConfig({
      PUBLIC_BASE_URL: 'https://gateway.example.org/',
      CALLBACK_BASE_URL: 'http://mdt.example.org/api/callbacks//',
      CALLBACK_SECRET: SECRET,
    });
    expect(config.server.publicBaseUrl).toBe('https://gateway.example.org');
    expect(config.callback.baseUrl).toBe('http://mdt.example.org/api/callbacks');
  });

  it('ADVICE_MAX_RUNNING defaults to half the LLM slots, at least one', () => {
    expect(loadConfig({ LLM_PARALLEL: '8' }).advice.maxRunning).toBe(4);
    expect(loadConfig({ LLM_PARALLEL: '1' }).advice.maxRunning).toBe(1);
    expect(loadConfig({ LLM_PARALLEL: '8', LLM_MAX_RUNNING: '6' }).advice.maxRunning).toBe(3);
    expect(loadConfig({ LLM_PARALLEL: '8', ADVICE_MAX_RUNNING: '8' }).advice.maxRunning).toBe(8);
  });

  it('FETCH_MAX_IN_FLIGHT_BYTES defaults to four files of FETCH_MAX_BYTES, and an explicit value wins', () => {
    expect(loadConfig({ FETCH_MAX_BYTES: '1000' }).fetch.maxInFlightBytes).toBe(4000);
    expect(loadConfig({ FETCH_MAX_BYTES: '1000', FETCH_MAX_IN_FLIGHT_BYTES: '1500' }).fetch.maxInFlightBytes).toBe(1500);
  });

  it('an explicit PUBLIC_BASE_URL wins over the PORT default', () => {
    expect(loadConfig({ PORT: '9000', PUBLIC_BASE_URL: 'http://10.1.2.3:8443' }).server.publicBaseUrl).toBe('http://10.1.2.3:8443');
  });

  it('accepts secrets of the minimum length', () => {
    const callbackSecret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    const config = loadConfig({ CALLBACK_SECRET: callbackSecret, FILE_SIGNING_SECRET: 'f'.repeat(32) });
    expect(config.callback.secret).toBe(callbackSecret);
    expect(config.security.fileSigningSecret).toBe('f'.repeat(32));
  });
});

describe('loadConfig rejects bad values with a ConfigError naming the variable', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '80.5'],
    ['LOG_LEVEL', 'loud'],
    ['PUBLIC_BASE_URL', 'ftp://x'],
    ['PUBLIC_BASE_URL', 'not a url'],
    ['CALLBACK_BASE_URL', 'ftp://x'],
    ['CALLBACK_SECRET', 'c'.repeat(40)],
    ['CALLBACK_SECRET_PREVIOUS', `whsec_${Buffer.alloc(23).toString('base64')}`],
    ['API_TOKENS', 'platform=short'],
    ['OPERATOR_TOKENS', 'bad name=opera-0123456789abcdef'],
    ['FILE_SIGNING_SECRET', 'f'.repeat(31)],
    ['LLM_MAX_RUNNING', '0'],
    ['OCR_MAX_QUEUED', '-1'],
    ['ASR_QUEUE_TIMEOUT_MS', 'soon'],
    ['ASR_LANGUAGE', 'chinese'],
    ['ASR_MAX_RUNNING', '0'],
    ['ASR_BEAM_SIZE', '0'],
    ['ASR_MAX_BYTES', '1e9'],
    ['ASR_TIMEOUT_FACTOR', '-1'],
    ['SHUTDOWN_TIMEOUT_MS', '0'],
    ['BODY_LIMIT_BYTES', '-5'],
  ])('%s=%s', (name, value) => {
    const error = configError({ [name]: value });
    expect(error.name).toBe('ConfigError');
    expect(error.message).toContain(name);
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(new RegExp(`^${name}: `));
  });

  it('secrets that are too short say how long they must be', () => {
    expect(configError({ FILE_SIGNING_SECRET: 'short' }).message).toContain('at least 32 characters');
  });

  it('several bad values are all named in one error', () => {
    const error = configError({
      PORT: 'abc',
      LOG_LEVEL: 'loud',
      PUBLIC_BASE_URL: 'ftp://x',
      CALLBACK_SECRET: 'short',
      LLM_MAX_RUNNING: '0',
      OCR_MAX_QUEUED: '-1',
    });
    const named = ['PORT', 'LOG_LEVEL', 'PUBLIC_BASE_URL', 'CALLBACK_SECRET', 'LLM_MAX_RUNNING', 'OCR_MAX_QUEUED'];
    for (const name of named) expect(error.message).toContain(name);
    expect(error.problems.map((p) => p.split(':')[0]).sort()).toEqual([...named].sort());
    expect(error.message.split('\n')[0]).toBe('invalid configuration:');
  });

  it('does not read process.env when an env object is passed', () => {
    const previous = process.env.PORT;
    process.env.PORT = 'abc';
    try {
      expect(loadConfig({}).server.port).toBe(8080);
    } finally {
      if (previous === undefined) delete process.env.PORT;
      else process.env.PORT = previous;
    }
  });
});

describe('loadConfig reads numbers strictly', () => {
  it('treats blank values as unset and trims values', () => {
    const config = loadConfig({ PORT: '  ', OCR_MAX_QUEUED: ' ', HOST: ' 127.0.0.1 ' });
    expect(config.server.port).toBe(8080);
    expect(config.ocr.maxQueued).toBe(64);
    expect(config.server.host).toBe('127.0.0.1');
  });

  it.each(['0x1F90', '1e3', '80.5', '+80', '8 080'])('refuses PORT=%s', (port) => {
    expect(() => loadConfig({ PORT: port })).toThrow(/PORT/);
  });

  it.each(['mysql://db/gateway', 'db.local:5432', 'postgres://'])('refuses DATABASE_URL=%s', (url) => {
    expect(() => loadConfig({ DATABASE_URL: url })).toThrow(/DATABASE_URL/);
  });
});

describe('LLM settings', () => {
  it('runs as many LLM calls at once as the model has sequences unless LLM_MAX_RUNNING says otherwise', () => {
    expect(loadConfig({ LLM_PARALLEL: '4' }).llm.maxRunning).toBe(4);
    expect(loadConfig({ LLM_PARALLEL: '4', LLM_MAX_RUNNING: '3' }).llm.maxRunning).toBe(3);
  });

  it('reads GPU, layers, threads and context size', () => {
    const { llm } = loadConfig({ LLM_GPU: 'cuda', LLM_GPU_LAYERS: '20', LLM_THREADS: '2', LLM_CONTEXT_SIZE: '8192' });
    expect(llm).toMatchObject({ gpu: 'cuda', gpuLayers: 20, threads: 2, contextSize: 8192 });
    expect(loadConfig({ LLM_GPU_LAYERS: 'max' }).llm.gpuLayers).toBe('max');
  });

  it.each([
    ['LLM_GPU', 'metal'],
    ['LLM_GPU_LAYERS', 'some'],
    ['LLM_CONTEXT_SIZE', '100'],
    ['LLM_PARALLEL', '0'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });
});

describe('OCR settings', () => {
  it('defaults to PP-OCR on the CPU with its recogniser in int8 (prepared in the install folder), one worker per core on one thread each, tesseract chi_sim+eng from npm, and bounded pages', () => {
    expect(loadConfig({}).ocr).toEqual({
      engine: 'ppocr',
      workers: availableParallelism(),
      threads: 1,
      device: 'cpu',
      ppocrDir: fileURLToPath(new URL('../../.build/ppocr', import.meta.url)),
      precision: 'int8',
      batch: 1,
      detectionMaxSide: 960,
      langs: ['chi_sim', 'eng'],
      tessdataDir: undefined,
      workerMaxJobs: 200,
      startTimeoutMs: 60_000,
      maxPages: 100,
      maxPagePixels: 50_000_000,
      pdfHeapMb: 512,
      pdfPageTimeoutMs: 20_000,
      maxRunning: availableParallelism(),
      maxQueued: 64,
      queueTimeoutMs: 120_000,
    });
  });

  it('runs PP-OCR on CUDA only when OCR_DEVICE says so, and refuses an unknown device', () => {
    expect(loadConfig({ OCR_DEVICE: 'cuda' }).ocr.device).toBe('cuda');
    expect(() => loadConfig({ OCR_DEVICE: 'gpu' })).toThrow(/OCR_DEVICE/);
  });

  it('runs the recogniser in float when OCR_PRECISION=fp32, and refuses an unknown precision', () => {
    expect(loadConfig({ OCR_PRECISION: 'fp32' }).ocr.precision).toBe('fp32');
    expect(() => loadConfig({ OCR_PRECISION: 'int4' })).toThrow(/OCR_PRECISION/);
  });

  it('runs as many pages at once as there are workers unless OCR_MAX_RUNNING says otherwise', () => {
    expect(loadConfig({ OCR_WORKERS: '3' }).ocr.maxRunning).toBe(3);
    expect(loadConfig({ OCR_WORKERS: '3', OCR_MAX_RUNNING: '1' }).ocr.maxRunning).toBe(1);
  });

  it('reads languages, a tessdata directory and the limits', () => {
    const { ocr } = loadConfig({ OCR_LANGS: 'eng', OCR_TESSDATA_DIR: '/usr/share/tesseract-ocr/5/tessdata', OCR_MAX_PAGES: '5' });
    expect(ocr).toMatchObject({ langs: ['eng'], tessdataDir: '/usr/share/tesseract-ocr/5/tessdata', maxPages: 5 });
  });

  it.each([
    ['OCR_ENGINE', 'paddle'],
    ['OCR_THREADS', '0'],
    ['OCR_DET_MAX_SIDE', '100'],
    ['OCR_LANGS', 'chi_sim, eng'],
    ['OCR_LANGS', '../etc'],
    ['OCR_WORKERS', '0'],
    ['OCR_MAX_PAGE_PIXELS', '1e6'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });
});
