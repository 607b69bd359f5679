import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { REPO_ROOT } from './paths.js';

/** Tries of onFreePort before it gives up: each one lost a port to another process in between. */
const PORT_TRIES = 5;

/**
 * A loopback port nothing listens on now, free only until someone binds it: for a port a test
 * names but nothing listens on; a port to listen on comes from onFreePort.
 */
export async function unusedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** A listen's EADDRINUSE, or a child's start that failed on it and said so (Node, PostgreSQL, llama-server). */
function isPortTaken(error: unknown): boolean {
  if ((error as { code?: unknown } | undefined)?.code === 'EADDRINUSE') return true;
  return error instanceof Error && /EADDRINUSE|address already in use|couldn't bind/i.test(error.message);
}

/**
 * Runs `start` with a port nothing listened on a moment ago. The port is free only until someone
 * binds it, so when another process (or a concurrent onFreePort) took it before `start` did,
 * `start` runs again on a fresh one. A failed `start` must undo what it began.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const port = await unusedPort();
    try {
      return await start(port);
    } catch (error) {
      if (attempt === PORT_TRIES || !isPortTaken(error)) throw error;
    }
  }
}

/** Settings a developer's shell may export that must not change what a spawned gateway is tested with. */
export const NEUTRAL_GATEWAY_ENV = {
  API_TOKENS: '',
  OPERATOR_TOKENS: '',
  ALLOW_OPEN_ACCESS: '',
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
  CALLBACK_SECRET_PREVIOUS: '',
  CALLBACK_ALLOW_UNSIGNED: '',
  FILE_SIGNING_SECRET: '',
  DATABASE_URL: '',
  FETCH_ALLOW_LOOPBACK: '',
  FETCH_ALLOW_HOSTS: '',
  NODE_OPTIONS: '',
} as const;

/** Starts a TypeScript entry point of the repository (`src/main.ts`, `src/receiver/main.ts`) as its own process. */
export function spawnFromSource(entry: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
}

/**
 * Resolves once the child has written `text` on stdout (which keeps flowing afterwards, so the
 * child never blocks on a full pipe); rejects if it exits first, with what it wrote on stderr.
 */
export async function waitForLine(child: ChildProcess, text: string): Promise<void> {
  let output = '';
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString('utf8')).slice(-4000)));
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (!output.includes(text)) return;
      child.stdout!.off('data', read); // the stream stays flowing, its data dropped
      resolve();
    };
    child.stdout!.on('data', read);
    // 'close', not 'exit': by then its stderr is all in.
    child.once('close', (code) => reject(new Error(`exited (${code}) before logging "${text}"${errors ? `:\n${errors}` : ''}`)));
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

  /** The child's stderr is passed on to this process's, and kept for the error when it exits before `readyLine`. */
  async start(entry: string, env: Record<string, string>, readyLine: string): Promise<ChildProcess> {
    const child = spawnFromSource(entry, env);
    child.stderr!.pipe(process.stderr, { end: false });
    this.children.add(child);
    await waitForLine(child, readyLine);
    return child;
  }

  /** start() on a free port, which `envFor` puts in the child's settings; on another one when the child found it taken. */
  startOnFreePort(entry: string, envFor: (port: number) => Record<string, string>, readyLine: string): Promise<{ child: ChildProcess; port: number }> {
    return onFreePort(async (port) => ({ child: await this.start(entry, envFor(port), readyLine), port }));
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
