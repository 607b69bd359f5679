import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const csv = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
/** Digits only: no sign, decimals, exponent or hex slip through as numbers. */
export const integer = z
  .string()
  .regex(/^\d+$/, 'must be a whole number')
  .transform((v) => Number(v));
const positiveInt = integer.pipe(z.number().int().positive());
const nonNegativeInt = integer.pipe(z.number().int().min(0));
/** Where `npm run setup:whisper` puts whisper-cli (this file sits in src/ or dist/, one below the root). */
const BUILT_WHISPER_CLI = fileURLToPath(new URL('../.build/whisper/bin/whisper-cli', import.meta.url));
const MIB = 1024 * 1024;
/** The manifest of recommended models shipped with the gateway (models/manifest.json). */
const SHIPPED_MANIFEST = fileURLToPath(new URL('../models/manifest.json', import.meta.url));
const url = z.url({ protocol: /^https?$/ }).transform((v) => v.replace(/\/+$/, ''));

const envSchema = z.object({
  HOST: z.string().min(1).default('0.0.0.0'),
  /** 0 picks a free port (tests). */
  PORT: integer.pipe(z.number().max(65_535)).default(8080),
  MODELS_DIR: z.string().min(1).default('./models'),
  MODELS_VERIFY: z.enum(['on', 'off']).default('on'),
  MODELS_MANIFEST: z.string().min(1).default(SHIPPED_MANIFEST),
  DATA_DIR: z.string().min(1).default('./data'),
  PUBLIC_BASE_URL: url.optional(),
  CALLBACK_BASE_URL: url.optional(),
  CALLBACK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  CALLBACK_TIMEOUT_MS: positiveInt.default(10_000),
  CALLBACK_RETRY_BASE_MS: positiveInt.default(1_000),
  CALLBACK_RETRY_MAX_DELAY_MS: positiveInt.default(60 * 60 * 1000),
  CALLBACK_RETRY_HORIZON_MS: positiveInt.default(24 * 60 * 60 * 1000),
  ADVICE_CONCURRENCY: positiveInt.optional(),
  ADVICE_DRAFT_ATTEMPTS: positiveInt.default(3),
  ADVICE_TIMEOUT_MS: positiveInt.default(10 * 60 * 1000),
  ADVICE_RETENTION_DAYS: positiveInt.default(7),
  FILE_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  FILE_URL_TTL_SECONDS: positiveInt.default(24 * 3600),
  FETCH_ALLOW_HOSTS: csv.default([]),
  FETCH_ALLOW_LOOPBACK: bool.default(false),
  FETCH_MAX_BYTES: positiveInt.default(50 * MIB),
  FETCH_CONNECT_TIMEOUT_MS: positiveInt.default(5_000),
  FETCH_TIMEOUT_MS: positiveInt.default(60_000),
  API_TOKENS: csv.default([]),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: positiveInt.default(2 * 1024 * 1024),
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(30_000),
  LLM_MODEL: z.string().min(1).optional(),
  LLM_PARALLEL: positiveInt.default(2),
  LLM_THREADS: positiveInt.optional(),
  LLM_GPU: z.enum(['auto', 'cuda', 'vulkan', 'off']).default('auto'),
  LLM_GPU_LAYERS: z.union([z.enum(['auto', 'max']), integer.pipe(z.number().int().min(0))]).default('auto'),
  LLM_CONTEXT_SIZE: integer.pipe(z.number().int().min(512)).default(4096),
  LLM_TIMEOUT_MS: positiveInt.default(120_000),
  WHISPER_MODEL: z.string().min(1).optional(),
  WHISPER_VAD_MODEL: z.string().min(1).optional(),
  WHISPER_BIN: z.string().min(1).default(BUILT_WHISPER_CLI),
  FFMPEG_BIN: z.string().min(1).default('ffmpeg'),
  ASR_LANGUAGE: z
    .string()
    .regex(/^(auto|[a-z]{2,3})$/, 'must be a whisper language code such as zh or en, or auto')
    .default('zh'),
  ASR_CONCURRENCY: positiveInt.default(1),
  ASR_THREADS: positiveInt.optional(),
  ASR_BEAM_SIZE: integer.pipe(z.number().int().min(1).max(16)).default(5),
  ASR_TEMPERATURE_FALLBACK: bool.default(true),
  ASR_MAX_AUDIO_SECONDS: positiveInt.default(7200),
  ASR_MAX_BYTES: positiveInt.default(200 * MIB),
  ASR_TIMEOUT_FACTOR: z.coerce.number().positive().default(2),
  ASR_MAX_QUEUED: nonNegativeInt.default(16),
  ASR_QUEUE_TIMEOUT_MS: positiveInt.default(300_000),
  LLM_MAX_RUNNING: positiveInt.optional(),
  LLM_MAX_QUEUED: nonNegativeInt.default(32),
  LLM_QUEUE_TIMEOUT_MS: positiveInt.default(120_000),
  OCR_ENGINE: z.enum(['tesseract', 'off']).default('tesseract'),
  OCR_WORKERS: positiveInt.optional(),
  OCR_LANGS: z.string().regex(/^[a-z_]+(\+[a-z_]+)*$/, 'must look like chi_sim+eng').default('chi_sim+eng'),
  OCR_TESSDATA_DIR: z.string().min(1).optional(),
  OCR_WORKER_MAX_JOBS: positiveInt.default(200),
  OCR_START_TIMEOUT_MS: positiveInt.default(60_000),
  OCR_MAX_PAGES: positiveInt.default(100),
  OCR_MAX_PAGE_PIXELS: positiveInt.default(50_000_000),
  OCR_MAX_RUNNING: positiveInt.optional(),
  OCR_MAX_QUEUED: nonNegativeInt.default(64),
  OCR_QUEUE_TIMEOUT_MS: positiveInt.default(120_000),
  DEID_MIN_CONFIDENCE: integer.pipe(z.number().int().min(0).max(100)).default(70),
});

type Env = z.output<typeof envSchema>;

export interface LimiterSettings {
  maxRunning: number;
  maxQueued: number;
  queueTimeoutMs: number;
}

export interface Config {
  host: string;
  port: number;
  modelsDir: string;
  models: {
    /** Refuse a model whose sha256 differs from the manifest's or SHA256SUMS' (MODELS_VERIFY=on). */
    verify: boolean;
    manifestPath: string;
  };
  dataDir: string;
  publicBaseUrl: string;
  callback: {
    /** The platform: AI-3 results go to `${baseUrl}/internal/ai/callback`. */
    baseUrl: string | undefined;
    /** Signs callbacks (Standard Webhooks); unsigned without it. */
    secret: string | undefined;
    timeoutMs: number;
    retry: { baseDelayMs: number; maxDelayMs: number; horizonMs: number };
  };
  advice: {
    /** AI-3 drafts at once; the rest of the LLM's slots stay free for interactive requests. */
    concurrency: number;
    draftAttempts: number;
    /** Longest one draft attempt may take (a long generation on CPU exceeds LLM_TIMEOUT_MS). */
    timeoutMs: number;
    /** Finished jobs (delivered or dead) are kept this long for the status endpoint. */
    retentionMs: number;
  };
  fileSigningSecret: string | undefined;
  fileUrlTtlSeconds: number;
  fetch: {
    allowHosts: string[];
    allowLoopback: boolean;
    maxBytes: number;
    /** A recording (voice_url) may be larger than other files. */
    maxAudioBytes: number;
    connectTimeoutMs: number;
    totalTimeoutMs: number;
  };
  apiTokens: string[];
  logLevel: Env['LOG_LEVEL'];
  bodyLimitBytes: number;
  shutdownTimeoutMs: number;
  llm: {
    model: string | undefined;
    /** Context sequences of the one loaded model: requests served at once. */
    parallel: number;
    /** CPU threads for generation; defaults to the cores this process may use. */
    threads: number;
    gpu: 'auto' | 'cuda' | 'vulkan' | 'off';
    gpuLayers: 'auto' | 'max' | number;
    /** Tokens per sequence (prompt + output). */
    contextSize: number;
    /** Longest a single generation may run. */
    timeoutMs: number;
  };
  ocr: {
    /** 'off' leaves the OCR engine unavailable (tests that do not need it, hosts without OCR). */
    engine: 'tesseract' | 'off';
    /** tesseract.js workers, each one WASM instance on one core. */
    workers: number;
    /** Traineddata names, e.g. ['chi_sim', 'eng']. */
    langs: string[];
    /** Directory with <lang>.traineddata(.gz); defaults to the @tesseract.js-data npm packages. */
    tessdataDir: string | undefined;
    /** A worker is replaced after this many pages, which bounds its WASM heap. */
    workerMaxJobs: number;
    startTimeoutMs: number;
    /** Per file. */
    maxPages: number;
    /** Decoded pixels per page (image or rendered PDF page): decompression bombs stop here. */
    maxPagePixels: number;
  };
  asr: AsrSettings;
  deid: {
    /**
     * AI-4 withholds a page OCR read with a lower mean word confidence (0–100): what it cannot
     * read, it can neither redact nor audit.
     */
    minConfidence: number;
  };
  limits: { llm: LimiterSettings; ocr: LimiterSettings; asr: LimiterSettings };
}

export interface AsrSettings {
  /** WHISPER_MODEL: a ggml whisper model in MODELS_DIR, or a path. */
  model: string | undefined;
  vadModel: string | undefined;
  whisperBin: string;
  ffmpegBin: string;
  /** A whisper language code, or `auto` to detect it. */
  language: string;
  /** CPU threads of one whisper-cli job. */
  threads: number;
  beamSize: number;
  /** Whether whisper re-decodes a failed window at higher temperatures (slower, fewer loops). */
  temperatureFallback: boolean;
  maxAudioSeconds: number;
  /** A job may run this many times the audio's duration (plus a fixed minute) before it is killed. */
  timeoutFactor: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function limiter(env: Record<string, unknown>, prefix: string): LimiterSettings {
  return {
    maxRunning: env[`${prefix}_MAX_RUNNING`] as number,
    maxQueued: env[`${prefix}_MAX_QUEUED`] as number,
    queueTimeoutMs: env[`${prefix}_QUEUE_TIMEOUT_MS`] as number,
  };
}

/** Parses environment variables with `schema`; blank values count as unset, values are trimmed. */
export function parseEnv<S extends z.ZodType>(schema: S, source: NodeJS.ProcessEnv): z.output<S> {
  const present = Object.fromEntries(
    Object.entries(source)
      .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1].trim() !== '')
      .map(([key, value]) => [key, value.trim()]),
  );
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return parsed.data;
}

/** For process entry points: a bad configuration prints its problems and exits with 78 (EX_CONFIG). */
export function readConfigOrExit<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(78);
  }
}

/** Reads the gateway's configuration from environment variables. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const env = parseEnv(envSchema, source);
  // The limiter runs as many LLM calls as the model has sequences, unless told otherwise.
  const llmMaxRunning = env.LLM_MAX_RUNNING ?? env.LLM_PARALLEL;
  const ocrWorkers = env.OCR_WORKERS ?? availableParallelism();
  return {
    host: env.HOST,
    port: env.PORT,
    modelsDir: env.MODELS_DIR,
    models: { verify: env.MODELS_VERIFY === 'on', manifestPath: env.MODELS_MANIFEST },
    dataDir: env.DATA_DIR,
    publicBaseUrl: env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`,
    callback: {
      baseUrl: env.CALLBACK_BASE_URL,
      secret: env.CALLBACK_SECRET,
      timeoutMs: env.CALLBACK_TIMEOUT_MS,
      retry: {
        baseDelayMs: env.CALLBACK_RETRY_BASE_MS,
        maxDelayMs: env.CALLBACK_RETRY_MAX_DELAY_MS,
        horizonMs: env.CALLBACK_RETRY_HORIZON_MS,
      },
    },
    advice: {
      concurrency: env.ADVICE_CONCURRENCY ?? Math.max(1, Math.floor(llmMaxRunning / 2)),
      draftAttempts: env.ADVICE_DRAFT_ATTEMPTS,
      timeoutMs: env.ADVICE_TIMEOUT_MS,
      retentionMs: env.ADVICE_RETENTION_DAYS * 24 * 60 * 60 * 1000,
    },
    fileSigningSecret: env.FILE_SIGNING_SECRET,
    fileUrlTtlSeconds: env.FILE_URL_TTL_SECONDS,
    fetch: {
      allowHosts: env.FETCH_ALLOW_HOSTS,
      allowLoopback: env.FETCH_ALLOW_LOOPBACK,
      maxBytes: env.FETCH_MAX_BYTES,
      maxAudioBytes: env.ASR_MAX_BYTES,
      connectTimeoutMs: env.FETCH_CONNECT_TIMEOUT_MS,
      totalTimeoutMs: env.FETCH_TIMEOUT_MS,
    },
    apiTokens: env.API_TOKENS,
    logLevel: env.LOG_LEVEL,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    llm: {
      model: env.LLM_MODEL,
      parallel: env.LLM_PARALLEL,
      threads: env.LLM_THREADS ?? availableParallelism(),
      gpu: env.LLM_GPU,
      gpuLayers: env.LLM_GPU_LAYERS,
      contextSize: env.LLM_CONTEXT_SIZE,
      timeoutMs: env.LLM_TIMEOUT_MS,
    },
    ocr: {
      engine: env.OCR_ENGINE,
      workers: ocrWorkers,
      langs: env.OCR_LANGS.split('+'),
      tessdataDir: env.OCR_TESSDATA_DIR,
      workerMaxJobs: env.OCR_WORKER_MAX_JOBS,
      startTimeoutMs: env.OCR_START_TIMEOUT_MS,
      maxPages: env.OCR_MAX_PAGES,
      maxPagePixels: env.OCR_MAX_PAGE_PIXELS,
    },
    deid: { minConfidence: env.DEID_MIN_CONFIDENCE },
    asr: {
      model: env.WHISPER_MODEL,
      vadModel: env.WHISPER_VAD_MODEL,
      whisperBin: env.WHISPER_BIN,
      ffmpegBin: env.FFMPEG_BIN,
      language: env.ASR_LANGUAGE,
      // Jobs at once share the cores; more threads than cores only makes whisper slower.
      threads: env.ASR_THREADS ?? Math.max(1, Math.floor(availableParallelism() / env.ASR_CONCURRENCY)),
      beamSize: env.ASR_BEAM_SIZE,
      temperatureFallback: env.ASR_TEMPERATURE_FALLBACK,
      maxAudioSeconds: env.ASR_MAX_AUDIO_SECONDS,
      timeoutFactor: env.ASR_TIMEOUT_FACTOR,
    },
    limits: {
      llm: { ...limiter(env, 'LLM'), maxRunning: llmMaxRunning },
      // Pages run at once match the worker pool, unless told otherwise.
      ocr: { ...limiter(env, 'OCR'), maxRunning: env.OCR_MAX_RUNNING ?? ocrWorkers },
      asr: { maxRunning: env.ASR_CONCURRENCY, maxQueued: env.ASR_MAX_QUEUED, queueTimeoutMs: env.ASR_QUEUE_TIMEOUT_MS },
    },
  };
}
