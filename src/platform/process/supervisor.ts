/**
 * Keeps one long-lived Node.js child process running, so a native abort, an out-of-memory kill
 * or a hang in the child costs its calls and never the gateway:
 *   - start() forks the module; the owner hears of each new child (to send it its first message),
 *     of every message, and of every exit;
 *   - a child that exits unexpectedly, or that its owner retires (it could not load), is started
 *     again after 1 s, 2 s, 4 s … at most `maxMs`; a child that stays up `stableMs` after
 *     markStable() resets the backoff;
 *   - close() stops the child (SIGTERM, then SIGKILL after the grace) and starts no other.
 * The child's stdout and stderr go to the log line by line; the child must never print patient data.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Logger } from '../logger.js';
import { STOP_GRACE_MS, describeExit } from './exit.js';

export interface SupervisedModule {
  path: string;
  execArgv: string[];
}

export interface SupervisorBackoff {
  initialMs?: number;
  maxMs?: number;
  stableMs?: number;
}

export interface ChildExit {
  /** "code 1" / "signal SIGKILL". */
  how: string;
  /** False when the child died on its own (crash, OOM killer, kill -9). */
  expected: boolean;
  /** When the next child starts, or undefined after close(). */
  restartInMs: number | undefined;
}

export interface SupervisorHooks<In, Out> {
  /** A new child is running: send it what it needs to start work. */
  started(send: (message: In) => boolean): void;
  message(message: Out): void;
  exited(exit: ChildExit): void;
  /** The child could not even be forked; another try follows after `restartInMs`. */
  spawnFailed(error: unknown, restartInMs: number): void;
}

export interface SupervisorOptions {
  /** For logs: "LLM process". */
  name: string;
  module: SupervisedModule;
  logger?: Logger | undefined;
  backoff?: SupervisorBackoff | undefined;
  stopGraceMs?: number | undefined;
}

interface Child {
  process: ChildProcess;
  /** Set when the supervisor itself stops this child (retire, close). */
  retiring: boolean;
  exited: Promise<void>;
}

const MAX_OUTPUT_LINE_CHARS = 500;

export class Supervisor<In, Out> {
  private child: Child | undefined;
  private started = false;
  private closed = false;
  /** Failures since the last child that stayed up for `stableMs`; sets the backoff. */
  private failures = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private stableTimer: NodeJS.Timeout | undefined;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly stableMs: number;
  private readonly stopGraceMs: number;

  constructor(
    private readonly options: SupervisorOptions,
    private readonly hooks: SupervisorHooks<In, Out>,
  ) {
    this.initialMs = options.backoff?.initialMs ?? 1_000;
    this.maxMs = options.backoff?.maxMs ?? 30_000;
    this.stableMs = options.backoff?.stableMs ?? 60_000;
    this.stopGraceMs = options.stopGraceMs ?? STOP_GRACE_MS;
  }

  get pid(): number | undefined {
    return this.child?.process.pid;
  }

  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.spawn();
  }

  /** Sends to the running child; false when there is none or its channel is closed. */
  send(message: In, onError?: () => void): boolean {
    const proc = this.child?.process;
    if (!proc?.connected) return false;
    proc.send(message as object, (error) => {
      if (error) onError?.();
    });
    return true;
  }

  /** The child works: once it has stayed up `stableMs`, the backoff starts again from the beginning. */
  markStable(): void {
    clearTimeout(this.stableTimer);
    this.stableTimer = setTimeout(() => (this.failures = 0), this.stableMs).unref();
  }

  /** The child cannot do its work (e.g. its model did not load): stop it and try a new one after the backoff. */
  retire(): number {
    this.failures += 1;
    const child = this.child;
    if (child) this.stop(child);
    return this.backoffMs();
  }

  /** The wait before the next start, from the failures since the last stable child. */
  backoffMs(): number {
    return Math.min(this.maxMs, this.initialMs * 2 ** Math.max(0, this.failures - 1));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.restartTimer);
    clearTimeout(this.stableTimer);
    const child = this.child;
    if (!child) return;
    this.stop(child);
    await child.exited;
  }

  private stop(child: Child): void {
    child.retiring = true;
    child.process.kill('SIGTERM');
    const killer = setTimeout(() => child.process.kill('SIGKILL'), this.stopGraceMs);
    void child.exited.then(() => clearTimeout(killer));
  }

  private spawn(): void {
    this.restartTimer = undefined;
    if (this.closed) return;
    let proc: ChildProcess;
    try {
      const { path, execArgv } = this.options.module;
      proc = fork(path, [], { execArgv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'json' });
    } catch (error) {
      this.failures += 1;
      this.options.logger?.error({ err: error }, `cannot start the ${this.options.name}`);
      this.hooks.spawnFailed(error, this.backoffMs());
      this.restartTimer = setTimeout(() => this.spawn(), this.backoffMs());
      return;
    }
    let markExited!: () => void;
    const child: Child = { process: proc, retiring: false, exited: new Promise<void>((resolve) => (markExited = resolve)) };
    this.child = child;
    let exitHandled = false;
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      if (exitHandled) return;
      exitHandled = true;
      markExited();
      this.onChildExit(child, describeExit(code, signal));
    };
    proc.on('message', (message: Out) => {
      if (child === this.child) this.hooks.message(message);
    });
    proc.on('exit', onExit);
    proc.on('error', (error) => {
      this.options.logger?.error({ err: error }, `the ${this.options.name} failed to start or to receive a message`);
      if (proc.pid === undefined) onExit(null, null); // it never started: no 'exit' will follow
    });
    this.logOutput(proc);
    this.hooks.started((message) => this.send(message));
  }

  private logOutput(proc: ChildProcess): void {
    for (const [stream, level] of [
      [proc.stdout, 'info'],
      [proc.stderr, 'warn'],
    ] as const) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) => {
        this.options.logger?.[level]({ output: line.slice(0, MAX_OUTPUT_LINE_CHARS) }, `${this.options.name} output`);
      });
    }
  }

  private onChildExit(child: Child, how: string): void {
    if (child !== this.child) return;
    this.child = undefined;
    clearTimeout(this.stableTimer);
    const expected = this.closed || child.retiring;
    if (!expected) this.failures += 1;
    const restartInMs = this.closed ? undefined : this.backoffMs();
    this.hooks.exited({ how, expected, restartInMs });
    if (restartInMs !== undefined) this.restartTimer = setTimeout(() => this.spawn(), restartInMs);
  }
}
