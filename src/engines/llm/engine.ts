/**
 * The LLM engine: the model runs in a supervised child process (worker.ts) so a native abort, an
 * out-of-memory kill or a hung generation never takes the gateway down. This class keeps the
 * engine's state for /readyz and turns calls into messages:
 *   - a new child is asked to load the model (state `starting` → `ready`);
 *   - when the child dies unexpectedly, every call in flight fails with a retryable
 *     `engine_failed`, the state is `starting` again with the reason (`failed` when it died
 *     before it ever loaded), and the supervisor starts a new child after its backoff;
 *   - when the model cannot be loaded, the state is `unavailable` (file missing) or `failed`
 *     (the reason) and the child is retired and tried again on the same backoff, so a fixed
 *     file recovers without a restart;
 *   - close() stops the child and starts no other.
 */
import { GatewayError } from '../../errors.js';
import type { Logger } from '../../platform/logger.js';
import { Supervisor, siblingModule, type ChildExit, type SupervisorBackoff } from '../../platform/process/index.js';
import { notReadyError } from '../readiness.js';
import { EngineLifecycle } from '../lifecycle.js';
import type { EngineState, EngineStatus, LlmEngine, LlmJsonRequest } from '../types.js';
import { parseAnswer } from './answer.js';
import { PendingCalls, type CallDeadline } from './pending-calls.js';
import { grammarSchemaFor } from './json-schema.js';
import type {
  ChildMessage,
  CountedMessage,
  CountMessage,
  GenerateMessage,
  LoadedMessage,
  LoadSettings,
  ModelFingerprint,
  ParentMessage,
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
  backoff?: SupervisorBackoff;
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

export class LlamaCppEngine implements LlmEngine {
  readonly name = 'llm' as const;

  private readonly lifecycle: EngineLifecycle;
  /** The reason of the last failure, without the "restarting …" suffix. */
  private failure: string | undefined;
  private loaded: LoadedMessage | undefined;
  private known: ModelFingerprint | undefined;
  /** Whether the running child has loaded the model. */
  private childReady = false;
  private started = false;
  private closed = false;
  private firstAttemptSettled: (() => void) | undefined;
  private readonly calls = new PendingCalls();
  private readonly supervisor: Supervisor<ParentMessage, ChildMessage>;
  private readonly timeoutMs: number;
  private readonly logger: Logger | undefined;

  constructor(private readonly options: LlamaCppEngineOptions) {
    this.timeoutMs = options.timeoutMs;
    this.lifecycle = new EngineLifecycle('loading the model', options.configured ?? true);
    this.logger = options.logger?.child({ engine: 'llm' });
    this.supervisor = new Supervisor(
      { name: 'LLM process', module: siblingModule(import.meta.url, 'worker'), logger: this.logger, backoff: options.backoff, stopGraceMs: options.stopGraceMs ?? 5_000 },
      {
        started: (send) => this.onChildStarted(send),
        message: (message) => this.onChildMessage(message),
        exited: (exit) => this.onChildExit(exit),
        spawnFailed: (error, restartInMs) =>
          this.fail(`cannot start the LLM process: ${error instanceof Error ? error.message : String(error)}`, 'retrying', restartInMs),
      },
    );
  }

  status(): EngineStatus {
    return this.lifecycle.status();
  }

  contextTokens(): number {
    return this.loaded?.contextTokens ?? 0;
  }

  /** The LLM process's pid, for diagnostics and tests; undefined while none runs. */
  pid(): number | undefined {
    return this.supervisor.pid;
  }

  /** Starts the LLM process; resolves once its first load has succeeded or failed (never rejects). */
  start(): Promise<void> {
    if (this.started || this.closed) return Promise.resolve();
    this.started = true;
    return new Promise<void>((resolve) => {
      this.firstAttemptSettled = resolve;
      this.supervisor.start();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.lifecycle.become('unavailable', 'the LLM engine is closed');
    this.settleFirstAttempt();
    this.calls.rejectAll(new GatewayError('engine_failed', 'the LLM engine is shutting down', { retryable: true }));
    await this.supervisor.close();
  }

  async generateJson<T>(request: LlmJsonRequest<T>, signal: AbortSignal): Promise<T> {
    return (await this.generateJsonWithStats(request, signal)).value;
  }

  /** generateJson, with the token counts and timing of the generation (for metrics and benchmarks). */
  async generateJsonWithStats<T>(
    request: LlmJsonRequest<T>,
    signal: AbortSignal,
  ): Promise<{ value: T; stats: GenerationStats }> {
    const deadline: CallDeadline =
      request.deadline !== undefined
        ? { at: request.deadline, message: "the LLM generation did not finish before the request's deadline" }
        : { at: Date.now() + this.timeoutMs, message: `the LLM generation ran longer than LLM_TIMEOUT_MS (${this.timeoutMs} ms)` };
    const maxTokens = Math.max(1, Math.floor(request.maxTokens));
    const message: Omit<GenerateMessage, 'id'> = {
      type: 'generate',
      messages: request.messages,
      jsonSchema: grammarSchemaFor(request.schema),
      maxTokens,
    };
    const result = (await this.call(message, signal, deadline)) as ResultMessage;
    const stats: GenerationStats = {
      promptTokens: result.promptTokens,
      outputTokens: result.outputTokens,
      generationMs: Math.round(result.generationMs),
      stopReason: result.stopReason,
    };
    this.logger?.debug(stats, 'LLM generation finished');
    const answer = { text: result.text, cutOff: result.stopReason === 'maxTokens', stopReason: result.stopReason };
    return { value: parseAnswer(answer, request.schema, maxTokens), stats };
  }

  async countTokens(text: string, signal: AbortSignal): Promise<number> {
    const message: Omit<CountMessage, 'id'> = { type: 'count', text };
    const counted = (await this.call(message, signal, {
      at: Date.now() + this.timeoutMs,
      message: `counting tokens ran longer than LLM_TIMEOUT_MS (${this.timeoutMs} ms)`,
    })) as CountedMessage;
    return counted.tokens;
  }

  private call(
    message: Omit<GenerateMessage, 'id'> | Omit<CountMessage, 'id'>,
    signal: AbortSignal,
    deadline: CallDeadline,
  ): Promise<ChildMessage> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.lifecycle.state !== 'ready' || !this.childReady) return Promise.reject(notReadyError('llm', this.status()));
    return this.calls.open(
      signal,
      deadline,
      (id) => {
        const sent = this.supervisor.send({ ...message, id } as ParentMessage, () => this.calls.reject(id, processGone()));
        if (!sent) this.calls.reject(id, processGone());
      },
      // The call answers at once; the child stops generating after its next token.
      (id) => this.supervisor.send({ type: 'abort', id }),
    );
  }

  private onChildStarted(send: (message: ParentMessage) => boolean): void {
    this.childReady = false;
    if (this.failure !== undefined) this.lifecycle.explain(`${this.failure}; restarting`);
    send({ type: 'load', settings: this.options.settings, ...(this.known ? { known: this.known } : {}) });
  }

  private onChildMessage(message: ChildMessage): void {
    switch (message.type) {
      case 'loaded':
        this.onLoaded(message);
        break;
      case 'loadFailed': {
        this.logger?.error({ state: message.state, reason: message.reason }, 'the LLM model did not load');
        this.fail(message.reason, 'retrying', this.supervisor.retire(), message.state);
        break;
      }
      case 'result':
      case 'counted':
        this.calls.resolve(message.id, message);
        break;
      case 'error':
        if (!this.calls.has(message.id)) {
          // A call the engine already answered (aborted, timed out): its generation has now stopped.
          this.logger?.debug({ call: message.id, kind: message.kind }, 'the LLM process stopped an abandoned call');
          break;
        }
        this.calls.reject(
          message.id,
          message.kind === 'payload_too_large'
            ? new GatewayError('payload_too_large', message.message)
            : new GatewayError('engine_failed', message.kind === 'aborted' ? 'the generation was aborted' : message.message, {
                retryable: true,
              }),
        );
        break;
      case 'log':
        this.logger?.[message.level]({ llama: message.message }, 'llama.cpp reported an error');
        break;
    }
  }

  private onLoaded(message: LoadedMessage): void {
    this.childReady = true;
    this.loaded = message;
    this.known = message.fingerprint;
    this.lifecycle.serves(message.model, message.verified);
    this.lifecycle.runsOn(message.device);
    this.lifecycle.ready();
    this.failure = undefined;
    this.supervisor.markStable();
    this.logger?.info(
      { model: message.model, device: message.device, contextTokens: message.contextTokens, loadMs: message.loadMs },
      'the LLM model is loaded',
    );
    this.settleFirstAttempt();
  }

  private onChildExit(exit: ChildExit): void {
    const wasServing = this.childReady;
    this.childReady = false;
    if (!exit.expected && exit.restartInMs !== undefined) {
      // An unexpected exit: a native abort, the OOM killer, a kill -9. A child that had loaded
      // the model is on its way back (`starting`: calls meanwhile are told to retry); one that
      // died while loading may die again on every load (`failed`: an operator must look).
      this.logger?.error({ exit: exit.how, inFlight: this.calls.size, restartInMs: exit.restartInMs }, 'the LLM process exited unexpectedly');
      this.fail(`the LLM process exited (${exit.how})`, 'restarting', exit.restartInMs, wasServing ? 'starting' : 'failed');
    }
    this.calls.rejectAll(processGone(exit.how));
    this.settleFirstAttempt();
  }

  /** Not ready, with the reason and when the next attempt comes. */
  private fail(failure: string, next: 'retrying' | 'restarting', inMs: number, state: EngineState = 'failed'): void {
    this.failure = failure;
    this.lifecycle.become(state, failure);
    this.lifecycle.willRetry(next, inMs);
    this.settleFirstAttempt();
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
