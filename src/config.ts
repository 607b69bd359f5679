import { availableParallelism } from 'node:os';
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
const url = z.url({ protocol: /^https?$/ }).transform((v) => v.replace(/\/+$/, ''));

/** Concurrency settings of one engine's limiter: <ENGINE>_MAX_RUNNING, _MAX_QUEUED, _QUEUE_TIMEOUT_MS. */
function limiterVars(prefix: string, defaults: { running: number; queued: number; queueTimeoutMs: number }) {
  return {
    [`${prefix}_MAX_RUNNING`]: positiveInt.default(defaults.running),
    [`${prefix}_MAX_QUEUED`]: nonNegativeInt.default(defaults.queued),
    [`${prefix}_QUEUE_TIMEOUT_MS`]: positiveInt.default(defaults.queueTimeoutMs),
  } as const;
}

const envSchema = z.object({
  HOST: z.string().min(1).default('0.0.0.0'),
  /** 0 picks a free port (tests). */
  PORT: integer.pipe(z.number().max(65_535)).default(8080),
  MODELS_DIR: z.string().min(1).default('./models'),
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
  FETCH_MAX_BYTES: positiveInt.default(50 * 1024 * 1024),
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
  ASR_MODEL: z.string().min(1).optional(),
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
  ...limiterVars('ASR', { running: 1, queued: 16, queueTimeoutMs: 300_000 }),
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
  asrModel: string | undefined;
  limits: { llm: LimiterSettings; ocr: LimiterSettings; asr: LimiterSettings };
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
    asrModel: env.ASR_MODEL,
    limits: {
      llm: { ...limiter(env, 'LLM'), maxRunning: llmMaxRunning },
      // Pages run at once match the worker pool, unless told otherwise.
      ocr: { ...limiter(env, 'OCR'), maxRunning: env.OCR_MAX_RUNNING ?? ocrWorkers },
      asr: limiter(env, 'ASR'),
    },
  };
}
