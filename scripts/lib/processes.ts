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
  DATABASE_URL: '',
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

/** Resolves once the child has written `text` on stdout; rejects if it exits first. */
export async function waitForLine(child: ChildProcess, text: string): Promise<void> {
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes(text)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`exited (${code}) before logging "${text}"`)));
  });
}

/** Polls `condition` every 25 ms; false when it never held within `timeoutMs`. */
export async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

/** The processes a test started: each started from source and awaited until ready, all killed at the end. */
export class ProcessSet {
  private readonly children = new Set<ChildProcess>();

  async start(entry: string, env: Record<string, string>, readyLine: string): Promise<ChildProcess> {
    const child = spawnFromSource(entry, env, 'inherit');
    this.children.add(child);
    await waitForLine(child, readyLine);
    return child;
  }

  /** kill -9, and waits until it is gone. */
  async kill(child: ChildProcess): Promise<void> {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
    this.children.delete(child);
  }

  async killAll(): Promise<void> {
    await Promise.all([...this.children].map((child) => this.kill(child)));
  }
}
