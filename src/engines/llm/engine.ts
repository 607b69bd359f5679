/**
 * The LLM engine's supervisor: the model runs in a child process (worker.ts) so a native abort,
 * an out-of-memory kill or a hung generation never takes the gateway down. The supervisor
 *   - starts the child and asks it to load the model (state `starting` → `ready`);
 *   - when the child dies unexpectedly, fails every call in flight with a retryable
 *     `engine_failed`, reports `failed` with the reason and starts a new child after 1 s, 2 s,
 *     4 s … at most 30 s (back to 1 s once a child has stayed up for a minute);
 *   - when the model cannot be loaded, reports `unavailable` (file missing) or `failed` (the
 *     reason) and retries on the same backoff, so a fixed file recovers without a restart;
 *   - on close(), stops the child (SIGTERM, then SIGKILL) and does not restart it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { GatewayError } from '../../errors.js';
import type { Logger } from '../../platform/logger.js';
import type { EngineState, EngineStatus, LlmEngine, LlmJsonRequest } from '../types.js';
import { grammarSchemaFor } from './json-schema.js';
import type {
  ChildMessage,
  CountedMessage,
  CountMessage,
  GenerateMessage,
  LoadedMessage,
  LoadSettings,
  ModelFingerprint,
  ResultMessage,
  StopReason,
} from './protocol.js';

export interface LlamaCppEngineOptions {
  settings: LoadSettings;
  /** Longest a single generation may run (LLM_TIMEOUT_MS). */
  timeoutMs: number;
  /** Whether the operator configured this engine (LLM_MODEL is set); defaults to true. */
  configured?: boolean;
  logger?: Logger;
  /** Restart backoff; the defaults are the production values. */
  backoff?: { initialMs?: number; maxMs?: number; stableMs?: number };
  /** How long close() waits after SIGTERM before SIGKILL. */
  stopGraceMs?: number;
}

export interface GenerationStats {
  promptTokens: number;
  outputTokens: number;
  /** From getting a sequence to the last token, in the LLM process (prompt evaluation included). */
  generationMs: number;
  stopReason: StopReason;
}

interface PendingCall {
  resolve(message: ChildMessage): void;
  reject(error: unknown): void;
}

interface Child {
  process: ChildProcess;
  ready: boolean;
  /** Set when the supervisor itself stops this child (load failed, close). */
  retiring: boolean;
  exited: Promise<void>;
}

const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_OUTPUT_LINE_CHARS = 500;

/**
 * Where the worker module is and how to start it: next to this module, as `.js` when running
 * from dist/, as `.ts` from source (tests, `tsx src/main.ts`), with tsx registered in the child
 * unless the parent's own flags already do.
 */
export function workerEntry(): { path: string; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  const path = fileURLToPath(new URL(fromSource ? './worker.ts' : './worker.js', import.meta.url));
  // A debugger flag would make the child fight the parent for the inspector port.
  const inherited = process.execArgv.filter((arg) => !/^--inspect|^--debug/.test(arg));
  if (!fromSource) return { path, execArgv: inherited };
  const tsxLoaded = inherited.some((arg) => /[\\/]tsx[\\/]|^tsx$/.test(arg));
  return { path, execArgv: tsxLoaded ? inherited : [...inherited, '--import', tsxLoaderUrl()] };
}

/** tsx's ESM loader (its package's "." export), located from this module (vitest has no import.meta.resolve). */
function tsxLoaderUrl(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('tsx/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports?: Record<string, unknown> };
  const entry = manifest.exports?.['.'];
  if (typeof entry !== 'string') throw new Error('cannot find the tsx loader to run the LLM worker from source');
  return pathToFileURL(resolve(dirname(manifestPath), entry)).href;
}

export class LlamaCppEngine implements LlmEngine {
  readonly name = 'llm' as const;

  private state: EngineState = 'starting';
  private reason: string | undefined = 'loading the model';
  /** The reason of the last failure, without the "restarting …" suffix. */
  private failure: string | undefined;
  private loaded: LoadedMessage | undefined;
  private known: ModelFingerprint | undefined;
  private child: Child | undefined;
  private readonly calls = new Map<number, PendingCall>();
  private nextId = 1;
  private started = false;
  private closed = false;
  /** Failures since the last child that stayed up for `stableMs`; sets the backoff. */
  private failures = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private stableTimer: NodeJS.Timeout | undefined;
  private firstAttemptSettled: (() => void) | undefined;

  private readonly settings: LoadSettings;
  private readonly timeoutMs: number;
  private readonly configured: boolean;
  private readonly logger: Logger | undefined;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly stableMs: number;
  private readonly stopGraceMs: number;

  constructor(options: LlamaCppEngineOptions) {
    this.settings = options.settings;
    this.timeoutMs = options.timeoutMs;
    this.configured = options.configured ?? true;
    this.logger = options.logger?.child({ engine: 'llm' });
    this.initialBackoffMs = options.backoff?.initialMs ?? 1_000;
    this.maxBackoffMs = options.backoff?.maxMs ?? 30_000;
    this.stableMs = options.backoff?.stableMs ?? 60_000;
    this.stopGraceMs = options.stopGraceMs ?? 5_000;
  }

  status(): EngineStatus {
    return {
      state: this.state,
      ...(this.reason !== undefined ? { reason: this.reason } : {}),
      configured: this.configured,
      ...(this.loaded ? { model: this.loaded.model, device: this.loaded.device, verified: this.loaded.verified } : {}),
    };
  }

  contextTokens(): number {
    return this.loaded?.contextTokens ?? 0;
  }

  /** The LLM process's pid, for diagnostics and tests; undefined while none runs. */
  pid(): number | undefined {
    return this.child?.process.pid;
  }

  /** Starts the LLM process; resolves once its first load has succeeded or failed (never rejects). */
  start(): Promise<void> {
    if (this.started || this.closed) return Promise.resolve();
    this.started = true;
    return new Promise<void>((resolve) => {
      this.firstAttemptSettled = resolve;
      this.spawn();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.restartTimer);
    clearTimeout(this.stableTimer);
    this.state = 'unavailable';
    this.reason = 'the LLM engine is closed';
    this.settleFirstAttempt();
    this.failCalls(new GatewayError('engine_failed', 'the LLM engine is shutting down', { retryable: true }));
    const child = this.child;
    if (!child) return;
    child.retiring = true;
    child.process.kill('SIGTERM');
    const killer = setTimeout(() => child.process.kill('SIGKILL'), this.stopGraceMs);
    await child.exited;
    clearTimeout(killer);
  }

  async generateJson<T>(request: LlmJsonRequest<T>, signal: AbortSignal): Promise<T> {
    return (await this.generateJsonWithStats(request, signal)).value;
  }

  /** generateJson, with the token counts and timing of the generation (for metrics and benchmarks). */
  async generateJsonWithStats<T>(
    request: LlmJsonRequest<T>,
    signal: AbortSignal,
  ): Promise<{ value: T; stats: GenerationStats }> {
    const startedAt = Date.now();
    const limitAt = request.deadline ?? startedAt + this.timeoutMs;
    const timeoutMessage =
      request.deadline !== undefined
        ? "the LLM generation did not finish before the request's deadline"
        : `the LLM generation ran longer than LLM_TIMEOUT_MS (${this.timeoutMs} ms)`;
    const maxTokens = Math.max(1, Math.floor(request.maxTokens));
    const message: Omit<GenerateMessage, 'id'> = {
      type: 'generate',
      messages: request.messages,
      jsonSchema: grammarSchemaFor(request.schema),
      maxTokens,
    };
    const result = (await this.call(message, signal, { at: limitAt, message: timeoutMessage })) as ResultMessage;
    const stats: GenerationStats = {
      promptTokens: result.promptTokens,
      outputTokens: result.outputTokens,
      generationMs: Math.round(result.generationMs),
      stopReason: result.stopReason,
    };
    this.logger?.debug(stats, 'LLM generation finished');

    let value: unknown;
    try {
      value = JSON.parse(result.text);
    } catch {
      throw new GatewayError(
        'engine_failed',
        result.stopReason === 'maxTokens'
          ? `the model's JSON was cut off at the output limit (maxTokens ${maxTokens}) before it was complete`
          : `the model's output is not valid JSON (stopped: ${result.stopReason})`,
        { retryable: true },
      );
    }
    const parsed = request.schema.safeParse(value);
    if (!parsed.success) {
      // Paths and issue codes only: zod's messages may quote the (patient) values.
      const issues = parsed.error.issues
        .slice(0, 5)
        .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.code}`)
        .join('; ');
      throw new GatewayError('engine_failed', `the model's JSON does not match the expected schema (${issues})`, {
        retryable: true,
      });
    }
    return { value: parsed.data, stats };
  }

  async countTokens(text: string, signal: AbortSignal): Promise<number> {
    const message: Omit<CountMessage, 'id'> = { type: 'count', text };
    const counted = (await this.call(message, signal, {
      at: Date.now() + this.timeoutMs,
      message: `counting tokens ran longer than LLM_TIMEOUT_MS (${this.timeoutMs} ms)`,
    })) as CountedMessage;
    return counted.tokens;
  }

  // -------------------------------------------------------------------------------------------
  // Calls
  // -------------------------------------------------------------------------------------------

  private call(
    message: Omit<GenerateMessage, 'id'> | Omit<CountMessage, 'id'>,
    signal: AbortSignal,
    limit: { at: number; message: string },
  ): Promise<ChildMessage> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const child = this.child;
    if (this.state !== 'ready' || !child?.ready) {
      return Promise.reject(
        new GatewayError('engine_unavailable', `the llm engine is ${this.state}: ${this.reason ?? 'no reason given'}`),
      );
    }
    if (limit.at <= Date.now()) return Promise.reject(new GatewayError('timeout', limit.message));
    const id = this.nextId++;
    return new Promise<ChildMessage>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.calls.delete(id);
      };
      // The call answers at once; the child stops generating after its next token and frees
      // the sequence for the next call in its pool.
      const cancel = (error: unknown) => {
        finish();
        if (child.process.connected) child.process.send({ type: 'abort', id });
        reject(error);
      };
      const onAbort = () => cancel(signal.reason);
      const timer = setTimeout(
        () => cancel(new GatewayError('timeout', limit.message)),
        Math.min(MAX_TIMER_MS, Math.max(0, limit.at - Date.now())),
      );
      signal.addEventListener('abort', onAbort, { once: true });
      this.calls.set(id, {
        resolve: (answer) => {
          finish();
          resolve(answer);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
      child.process.send({ ...message, id }, (error) => {
        if (error) this.calls.get(id)?.reject(processGone());
      });
    });
  }

  private failCalls(error: GatewayError): void {
    for (const call of [...this.calls.values()]) call.reject(error);
  }

  // -------------------------------------------------------------------------------------------
  // The child process
  // -------------------------------------------------------------------------------------------

  private spawn(): void {
    this.restartTimer = undefined;
    if (this.closed) return;
    if (this.failure !== undefined) this.reason = `${this.failure}; restarting`;
    let proc: ChildProcess;
    try {
      const entry = workerEntry();
      proc = fork(entry.path, [], { execArgv: entry.execArgv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'json' });
    } catch (error) {
      this.failures += 1;
      this.state = 'failed';
      this.failure = `cannot start the LLM process: ${error instanceof Error ? error.message : String(error)}`;
      this.reason = `${this.failure}; retrying in ${formatSeconds(this.backoffMs())}`;
      this.logger?.error({ err: error }, 'cannot start the LLM process');
      this.settleFirstAttempt();
      this.restartTimer = setTimeout(() => this.spawn(), this.backoffMs());
      return;
    }
    let exitedResolve!: () => void;
    const child: Child = {
      process: proc,
      ready: false,
      retiring: false,
      exited: new Promise<void>((resolve) => (exitedResolve = resolve)),
    };
    this.child = child;
    let exitHandled = false;
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      if (exitHandled) return;
      exitHandled = true;
      exitedResolve();
      this.onChildExit(child, code, signal);
    };
    proc.on('message', (message: ChildMessage) => this.onChildMessage(child, message));
    proc.on('exit', onExit);
    proc.on('error', (error) => {
      this.logger?.error({ err: error }, 'the LLM process failed to start or to receive a message');
      if (proc.pid === undefined) onExit(null, null); // it never started: no 'exit' will follow
    });
    // The child's own output (node-llama-cpp warnings, a native abort's message) goes to the
    // log line by line; the worker never prints prompts or outputs.
    for (const [stream, level] of [
      [proc.stdout, 'info'],
      [proc.stderr, 'warn'],
    ] as const) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) => {
        this.logger?.[level]({ output: line.slice(0, MAX_OUTPUT_LINE_CHARS) }, 'LLM process output');
      });
    }
    proc.send({ type: 'load', settings: this.settings, ...(this.known ? { known: this.known } : {}) });
  }

  private onChildMessage(child: Child, message: ChildMessage): void {
    if (child !== this.child) return;
    switch (message.type) {
      case 'loaded': {
        child.ready = true;
        this.loaded = message;
        this.known = message.fingerprint;
        this.state = 'ready';
        this.reason = undefined;
        this.failure = undefined;
        this.stableTimer = setTimeout(() => (this.failures = 0), this.stableMs);
        this.stableTimer.unref();
        this.logger?.info(
          { model: message.model, device: message.device, contextTokens: message.contextTokens, loadMs: message.loadMs },
          'the LLM model is loaded',
        );
        this.settleFirstAttempt();
        break;
      }
      case 'loadFailed': {
        this.failures += 1;
        const delayMs = this.backoffMs();
        this.state = message.state;
        this.failure = message.reason;
        this.reason = `${message.reason}; retrying in ${formatSeconds(delayMs)}`;
        this.logger?.error({ state: message.state, reason: message.reason, retryInMs: delayMs }, 'the LLM model did not load');
        this.settleFirstAttempt();
        child.retiring = true;
        child.process.kill('SIGTERM');
        break;
      }
      case 'result':
      case 'counted':
        this.calls.get(message.id)?.resolve(message);
        break;
      case 'error': {
        const call = this.calls.get(message.id);
        if (!call) {
          // A call the supervisor already answered (aborted, timed out): its generation has now stopped.
          this.logger?.debug({ call: message.id, kind: message.kind }, 'the LLM process stopped an abandoned call');
          break;
        }
        const error =
          message.kind === 'payload_too_large'
            ? new GatewayError('payload_too_large', message.message)
            : new GatewayError('engine_failed', message.kind === 'aborted' ? 'the generation was aborted' : message.message, {
                retryable: true,
              });
        call.reject(error);
        break;
      }
      case 'log':
        this.logger?.[message.level]({ llama: message.message }, 'llama.cpp reported an error');
        break;
    }
  }

  private onChildExit(child: Child, code: number | null, signal: NodeJS.Signals | null): void {
    if (child !== this.child) return;
    this.child = undefined;
    clearTimeout(this.stableTimer);
    const how = signal ? `signal ${signal}` : `code ${code}`;
    const inFlight = this.calls.size;
    if (!this.closed && !child.retiring) {
      // An unexpected exit: a native abort, the OOM killer, a kill -9.
      this.failures += 1;
      this.state = 'failed';
      this.failure = `the LLM process exited (${how})`;
      this.reason = `${this.failure}; restarting in ${formatSeconds(this.backoffMs())}`;
      this.logger?.error({ exit: how, inFlight, restartInMs: this.backoffMs() }, 'the LLM process exited unexpectedly');
    }
    this.failCalls(processGone(how));
    this.settleFirstAttempt();
    if (this.closed) return;
    this.restartTimer = setTimeout(() => this.spawn(), this.backoffMs());
  }

  /** The wait before the next start, from the failures since the last stable child. */
  private backoffMs(): number {
    return Math.min(this.maxBackoffMs, this.initialBackoffMs * 2 ** Math.max(0, this.failures - 1));
  }

  private settleFirstAttempt(): void {
    this.firstAttemptSettled?.();
    this.firstAttemptSettled = undefined;
  }
}

function processGone(how?: string): GatewayError {
  return new GatewayError(
    'engine_failed',
    `the LLM process exited${how ? ` (${how})` : ''} during the call; it is restarting, the call may be repeated`,
    { retryable: true },
  );
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
