import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { onFreePort } from './processes.js';
import { REPO_ROOT } from './paths.js';

/** Where `npm run setup:llama-server` puts llama.cpp's server. */
export const LLAMA_SERVER_BIN = join(REPO_ROOT, '.build', 'llama', 'bin', 'llama-server');

/** Why the suites against a real llama-server cannot run here, or null (for describeWithTools). */
export async function llamaServerMissing(): Promise<string | null> {
  try {
    await access(LLAMA_SERVER_BIN, constants.X_OK);
    return null;
  } catch {
    return `llama-server not built (${LLAMA_SERVER_BIN}): run npm run setup:llama-server`;
  }
}

export interface LlamaServer {
  /** The OpenAI API base, as LLM_BASE_URL takes it. */
  baseUrl: string;
  /** The name it serves the model under (`--alias`). */
  alias: string;
  process: ChildProcess;
  /** Kills it (SIGKILL by default) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface LlamaServerOptions {
  model: string;
  alias?: string;
  /** CPU threads (2-core CI machines: 1). */
  threads?: number;
  /** Slots; the context is shared between them. */
  parallel?: number;
  contextSize?: number;
  /** Longest wait for the model to load. */
  startTimeoutMs?: number;
}

/** Starts llama-server on a free loopback port and resolves once `/health` says the model is loaded. */
export function startLlamaServer(options: LlamaServerOptions): Promise<LlamaServer> {
  return onFreePort((port) => startLlamaServerOn(port, options));
}

async function startLlamaServerOn(port: number, options: LlamaServerOptions): Promise<LlamaServer> {
  const alias = options.alias ?? 'test-model';
  const parallel = options.parallel ?? 2;
  const args = [
    ['--model', options.model],
    ['--alias', alias],
    ['--host', '127.0.0.1'],
    ['--port', String(port)],
    ['--threads', String(options.threads ?? 1)],
    ['--threads-batch', String(options.threads ?? 1)],
    ['--parallel', String(parallel)],
    ['--ctx-size', String((options.contextSize ?? 2048) * parallel)],
    ['--no-webui'],
    ['--no-warmup'],
  ].flat();
  const child = spawn(LLAMA_SERVER_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const stderr: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr.push(chunk.toString('utf8'));
    if (stderr.length > 200) stderr.shift();
  });
  const exited = once(child, 'exit');
  const server: LlamaServer = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    alias,
    process: child,
    stop: async (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`llama-server exited with ${child.exitCode}: ${stderr.join('').slice(-2000)}`);
    const health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
    if (health?.ok) return server;
    await sleep(100);
  }
  await server.stop();
  throw new Error(`llama-server did not load the model within ${options.startTimeoutMs ?? 60_000} ms: ${stderr.join('').slice(-2000)}`);
}
