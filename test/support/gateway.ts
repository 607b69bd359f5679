import { request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Operation } from '../../src/operations/index.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import type { EngineSet } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logger.js';
import type { FileReferenceBody } from './file-server.js';
import { readyStatus } from '../../src/engines/readiness.js';

export interface TestGateway {
  app: FastifyInstance;
  config: Config;
  dataDir: string;
  /** Every log line the gateway wrote, as raw JSON text. */
  logs: string[];
  close(): Promise<void>;
}

/** Builds the real app on a fresh data dir, logging at debug into memory. */
export async function startGateway(
  env: NodeJS.ProcessEnv = {},
  /** listen: on a free loopback port, or on the one given (when the links it hands out must name it). */
  options: { engines?: EngineSet; operations?: readonly Operation[]; listen?: boolean | number; dataDir?: string; keepDataDir?: boolean } = {},
): Promise<TestGateway> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'gateway-test-')));
  // OCR workers take seconds of CPU to start: only tests that read documents turn them on. The
  // data dir is always this one, even when `env` is a shell's (the evals pass process.env).
  const config = loadConfig({ LOG_LEVEL: 'debug', OCR_ENGINE: 'off', ...env, DATA_DIR: dataDir });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp({
    config,
    logger: createLogger(config.server.logLevel, sink),
    ...(options.engines ? { engines: options.engines } : {}),
    ...(options.operations ? { operations: options.operations } : {}),
  });
  const close = async () => {
    await app.close();
    if (!options.keepDataDir) await rm(dataDir, { recursive: true, force: true });
  };
  try {
    if (options.listen !== undefined && options.listen !== false) await app.listen({ host: '127.0.0.1', port: options.listen === true ? 0 : options.listen });
    else await app.ready();
  } catch (error) {
    await close(); // a port given may have been taken meanwhile (EADDRINUSE): nothing is left running
    throw error;
  }
  return { app, config, dataDir, logs, close };
}

export const OCR_ENV = { OCR_ENGINE: 'ppocr', OCR_WORKERS: '1', OCR_THREADS: '1', FETCH_ALLOW_LOOPBACK: 'true' };
export const OCR_START_WITHIN_MS = 60_000;

/** The gateway with the real OCR engine (one worker), once its worker has loaded. */
export async function startOcrGateway(options: Parameters<typeof startGateway>[1] = {}): Promise<TestGateway> {
  const started = await startGateway(OCR_ENV, options);
  await readyStatus('ocr', () => started.app.engineStatus('ocr'), OCR_START_WITHIN_MS);
  return started;
}

/** A real-sized model on a CPU takes minutes to load. */
const LLM_START_LIMIT_MS = 10 * 60_000;

/**
 * The gateway with the LLM engine on `modelPath` (the other settings from the environment, as an
 * operator would run it), once the model has loaded.
 */
export async function startLlmGateway(modelPath: string, env: Record<string, string> = {}): Promise<TestGateway> {
  const gateway = await startGateway({ ...process.env, LOG_LEVEL: 'warn', ...env, LLM_MODEL: resolve(modelPath) });
  try {
    await readyStatus('llm', () => gateway.app.engineStatus('llm'), LLM_START_LIMIT_MS);
  } catch (error) {
    await gateway.close();
    throw error;
  }
  return gateway;
}

/** POSTs files to a document operation; the status and the parsed body. */
export async function postFiles(target: TestGateway, path: string, requestId: string, files: FileReferenceBody[]) {
  const response = await target.app.inject({ method: 'POST', url: path, payload: { request_id: requestId, files } });
  return { status: response.statusCode, json: response.json() };
}

export function baseUrl(app: FastifyInstance): string {
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('the app is not listening');
  return `http://127.0.0.1:${address.port}`;
}

export const VALID_BODIES = {
  '/ai/v1/speech-process': {
    request_id: 'req-1',
    cancer_type: '肺癌',
    standard_department_code: 'RAD',
    points: [
      { seq: 1, name: '影像学表现' },
      { seq: 2, name: '分期意见' },
    ],
    speech_text: '右肺上叶见肿块，分期T2N1M0。',
  },
  '/ai/v1/report-advice-draft': {
    request_id: 'req-2',
    cancer_type: '肺癌',
    case_summary: { diagnosis: '右肺腺癌', key_question: '是否手术' },
    dept_opinions: [{ dept: '胸外科', content: '建议手术', supplements: [{ doctor: '张医生', content: '完善检查' }] }],
  },
  '/ai/v1/case-file-process': {
    request_id: 'req-3',
    files: [{ upload_file_id: 1, bucket: 'b', object_key: 'k/1.jpg', file_name: '1.jpg', file_url: 'http://127.0.0.1:9/1.jpg' }],
  },
  '/ai/v1/case-ocr': {
    request_id: 'req-4',
    files: [{ upload_file_id: 1, bucket: 'b', object_key: 'k/1.jpg', file_name: '1.jpg', file_url: 'http://127.0.0.1:9/1.jpg' }],
  },
  '/ai/v1/asr': { request_id: 'req-5', voice_url: 'http://127.0.0.1:9/1.wav' },
} as const;

export type OperationPath = keyof typeof VALID_BODIES;
export const OPERATION_PATHS = Object.keys(VALID_BODIES) as OperationPath[];

export interface PlainResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * POSTs JSON over a fresh connection that is closed afterwards. (fetch's pool opens a spare
 * connection after an abort, which would hold the server's close until headersTimeout.)
 */
export function postJson(url: string, payload: unknown, signal?: AbortSignal): Promise<PlainResponse> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(payload);
    const request = httpRequest(
      url,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, ...(signal ? { signal } : {}) },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
