import { request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Operation } from '../../src/operations/index.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import type { EngineName, EngineSet, EngineStatus } from '../../src/engines/types.js';
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

export interface StartOptions {
  engines?: EngineSet;
  operations?: readonly Operation[];
  /** On a free loopback port, or on the one given (when the links it hands out must name it). */
  listen?: boolean | number;
  dataDir?: string;
  keepDataDir?: boolean;
}

/** A gateway whose engine has finished starting, with that engine's status. */
export interface ReadyGateway extends TestGateway {
  status: EngineStatus;
}

/** Builds the real app on a fresh data dir, logging at debug into memory. */
export async function startGateway(env: NodeJS.ProcessEnv = {}, options: StartOptions = {}): Promise<TestGateway> {
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

/**
 * startGateway, then waits until its `engine` is ready, at most `readyWithinMs` (the time its
 * model takes to load with these settings on this machine); closes it when it is not.
 */
export async function startReadyGateway(
  engine: EngineName,
  readyWithinMs: number,
  env: NodeJS.ProcessEnv = {},
  options: StartOptions = {},
): Promise<ReadyGateway> {
  const gateway = await startGateway(env, options);
  try {
    return { ...gateway, status: await readyStatus(engine, () => gateway.app.engineStatus(engine), readyWithinMs) };
  } catch (error) {
    await gateway.close();
    throw error;
  }
}

export const OCR_ENV = { OCR_ENGINE: 'ppocr', OCR_WORKERS: '1', OCR_THREADS: '1', FETCH_ALLOW_LOOPBACK: 'true' };
/** One PP-OCR worker loading its models. */
export const OCR_START_WITHIN_MS = 60_000;

/** The gateway with the real OCR engine (one worker), once its worker has loaded. */
export function startOcrGateway(options: StartOptions = {}): Promise<ReadyGateway> {
  return startReadyGateway('ocr', OCR_START_WITHIN_MS, OCR_ENV, options);
}

/** A real-sized model on a CPU takes minutes to load. */
const LLM_START_LIMIT_MS = 10 * 60_000;

/**
 * The gateway with the LLM engine on `modelPath` (the other settings from the environment, as an
 * operator would run it), once the model has loaded.
 */
export function startLlmGateway(modelPath: string, env: Record<string, string> = {}): Promise<ReadyGateway> {
  return startReadyGateway('llm', LLM_START_LIMIT_MS, { ...process.env, LOG_LEVEL: 'warn', ...env, LLM_MODEL: resolve(modelPath) });
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

export interface PlainResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * POSTs JSON over a fresh connection that is closed afterwards. (fetch's pool opens a spare
 * connection after an abort, which would hold the server's close until headersTimeout.)
 */
export function postJson(url: string, payload: unknown, signal?: AbortSignal, headers: Record<string, string> = {}): Promise<PlainResponse> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(payload);
    const request = httpRequest(
      url,
      { method: 'POST', agent: false, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, ...(signal ? { signal } : {}) },
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
