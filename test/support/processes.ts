import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { REPO_ROOT } from './paths.js';

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  await new Promise<void>((done) => server.close(() => done()));
  return address.port;
}

/** Settings a developer's shell may export that must not change what a spawned gateway is tested with. */
export const NEUTRAL_GATEWAY_ENV = {
  API_TOKENS: '',
  LLM_MODEL: '',
  LLM_BACKEND: '',
  LLM_BASE_URL: '',
  LLM_MODEL_NAME: '',
  LLM_API_KEY: '',
  WHISPER_MODEL: '',
  // The OCR engine needs no model file; its own tests start it (test/http/case-ocr.test.ts).
  OCR_ENGINE: 'off',
  PUBLIC_BASE_URL: '',
  CALLBACK_BASE_URL: '',
  CALLBACK_SECRET: '',
  FILE_SIGNING_SECRET: '',
  FETCH_ALLOW_LOOPBACK: '',
  FETCH_ALLOW_HOSTS: '',
  NODE_OPTIONS: '',
} as const;

/** Starts a TypeScript entry point of the repository (`src/main.ts`, `src/receiver/main.ts`) as its own process. */
export function spawnFromSource(entry: string, env: Record<string, string>, stderr: 'pipe' | 'inherit' = 'pipe'): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', stderr],
    env: { ...process.env, ...env },
  });
}
