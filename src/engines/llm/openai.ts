/**
 * The LLM engine of LLM_BACKEND=openai: an operator's OpenAI-compatible model server (vLLM,
 * llama.cpp's llama-server, Ollama) does the generating; this class keeps its readiness and
 * turns calls into HTTP requests.
 *   - Readiness is polled in the background: the engine is `ready` only while the server
 *     answers `GET /models` and lists LLM_MODEL_NAME; otherwise it says why.
 *   - Generation is `POST /chat/completions` with the request's JSON schema as a strict
 *     `response_format`, then the same zod re-validation as the local engine.
 *   - The server's answers map to error kinds honestly: 429 overloaded, 503 unavailable for
 *     now, other 5xx and lost connections engine_failed (all retryable); its 4xx are not.
 * The server is an address the operator configured and trusts (often on the LAN or loopback),
 * so the file fetcher's address rules do not apply to it (http-json.ts, not safe fetch). Nothing
 * here logs prompts or answers.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '../../errors.js';
import type { Logger } from '../../platform/logger.js';
import { notReadyError } from '../readiness.js';
import { EngineLifecycle } from '../lifecycle.js';
import type { EngineState, EngineStatus, LlmEngine, LlmJsonRequest } from '../types.js';
import { parseAnswer } from './answer.js';
import { requestJson, type JsonAnswer } from './http-json.js';
import { responseFormatSchemaFor } from './json-schema.js';

export interface OpenAiEngineOptions {
  /** The API's base, as OpenAI clients take it (usually ending in `/v1`). */
  baseUrl: string;
  apiKey?: string;
  /** The model name the server serves, as `/models` lists it. */
  model: string;
  /** Longest a single generation may run (LLM_TIMEOUT_MS). */
  timeoutMs: number;
  /** Tokens per sequence when the server does not say (LLM_CONTEXT_SIZE). */
  contextTokens: number;
  logger?: Logger;
  /** How often readiness is checked while ready, and while not; the defaults are the production values. */
  pollMs?: { ready: number; notReady: number };
}

/** What one generation cost, measured by the server (tokens) and here (time). */
export interface RemoteGenerationStats {
  promptTokens: number;
  outputTokens: number;
  /** From sending the request to its answer, network included. */
  generationMs: number;
  stopReason: string;
}

const DEFAULT_POLL_MS = { ready: 10_000, notReady: 2_000 };
/** A readiness probe that takes longer than this counts as no answer. */
const PROBE_TIMEOUT_MS = 5_000;
const DEFAULT_RETRY_AFTER_SECONDS = 1;
/** The server's error `type` is quoted in messages only when it looks like an identifier (never its free text). */
const ERROR_TYPE = /^[a-z_]{1,60}$/;

interface ModelEntry {
  id?: unknown;
  aliases?: unknown;
  /** llama-server: the context of one slot. */
  meta?: { n_ctx?: unknown };
  /** vLLM. */
  max_model_len?: unknown;
}

interface ChatCompletion {
  choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }>;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
}

export class OpenAiEngine implements LlmEngine {
  readonly name = 'llm' as const;

  private readonly lifecycle: EngineLifecycle;
  private context: number;
  /** Whether the server counts tokens (llama-server's `/tokenize`); else they are estimated. */
  private tokenizer = false;
  private started = false;
  private closed = false;
  /** Aborted by close(): stops the poller and the calls still in flight. */
  private readonly closing = new AbortController();
  /** Wakes the poller early, e.g. after a call found the server gone. */
  private wake: (() => void) | undefined;
  private readonly host: string;
  private readonly logger: Logger | undefined;

  constructor(private readonly options: OpenAiEngineOptions) {
    this.host = new URL(options.baseUrl).host;
    this.lifecycle = new EngineLifecycle(`waiting for the model server at ${this.host}`);
    this.lifecycle.serves(this.modelLabel);
    this.lifecycle.runsOn(`remote: ${this.host}`);
    this.context = options.contextTokens;
    this.logger = options.logger?.child({ engine: 'llm' });
  }

  /** `openai:<model name>@<host>`: the remote model, as processor_version.model names it. */
  get modelLabel(): string {
    return `openai:${this.options.model}@${this.host}`;
  }

  status(): EngineStatus {
    return this.lifecycle.status();
  }

  contextTokens(): number {
    return this.context;
  }

  /** Resolves once the first readiness check has answered (never rejects); checks go on in the background. */
  start(): Promise<void> {
    if (this.started || this.closed) return Promise.resolve();
    this.started = true;
    const first = this.probe();
    void first.then(() => this.poll());
    return first;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    this.wake?.();
    this.lifecycle.become('unavailable', 'the LLM engine is closed');
  }

  async generateJson<T>(request: LlmJsonRequest<T>, signal: AbortSignal): Promise<T> {
    return (await this.generateJsonWithStats(request, signal)).value;
  }

  /** generateJson, with the server's token counts and the call's time (for benchmarks). */
  async generateJsonWithStats<T>(request: LlmJsonRequest<T>, signal: AbortSignal): Promise<{ value: T; stats: RemoteGenerationStats }> {
    const maxTokens = Math.max(1, Math.floor(request.maxTokens));
    const deadline =
      request.deadline !== undefined
        ? { at: request.deadline, message: "the LLM generation did not finish before the request's deadline" }
        : { at: Date.now() + this.options.timeoutMs, message: `the LLM generation ran longer than LLM_TIMEOUT_MS (${this.options.timeoutMs} ms)` };
    const started = performance.now();
    const completion = (await this.post(
      '/chat/completions',
      {
        model: this.options.model,
        messages: request.messages,
        max_tokens: maxTokens,
        temperature: 0, // greedy, as the local engine generates
        stream: false,
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'answer', schema: responseFormatSchemaFor(request.schema), strict: true },
        },
      },
      signal,
      deadline,
    )) as ChatCompletion;
    const choice = completion.choices?.[0];
    const text = choice?.message?.content;
    if (typeof text !== 'string') throw new GatewayError('engine_failed', `the model server at ${this.host} answered without a message`);
    const stopReason = typeof choice?.finish_reason === 'string' ? choice.finish_reason : 'unknown';
    const stats: RemoteGenerationStats = {
      promptTokens: numberOr(completion.usage?.prompt_tokens, 0),
      outputTokens: numberOr(completion.usage?.completion_tokens, 0),
      generationMs: Math.round(performance.now() - started),
      stopReason,
    };
    this.logger?.debug(stats, 'LLM generation finished');
    return { value: parseAnswer({ text, cutOff: stopReason === 'length', stopReason }, request.schema, maxTokens), stats };
  }

  /**
   * llama-server counts with the model's own tokenizer (`/tokenize`). Other servers offer no
   * tokenizer, so the count is estimated on the high side for Chinese-capable tokenizers: one
   * token per CJK character (Qwen2.5 makes about 0.7) and one per three other characters
   * (about four in English text). An overestimate only makes speech windows smaller.
   */
  async countTokens(text: string, signal: AbortSignal): Promise<number> {
    if (!this.tokenizer) return estimateTokens(text);
    const answer = (await this.post('/tokenize', { content: text }, signal, {
      at: Date.now() + this.options.timeoutMs,
      message: `counting tokens ran longer than LLM_TIMEOUT_MS (${this.options.timeoutMs} ms)`,
    })) as { tokens?: unknown };
    if (!Array.isArray(answer.tokens)) throw new GatewayError('engine_failed', `the model server at ${this.host} answered /tokenize without tokens`);
    return answer.tokens.length;
  }

  /** POSTs JSON to the server and returns its JSON answer; every failure as a GatewayError. */
  private async post(path: string, body: unknown, signal: AbortSignal, deadline: { at: number; message: string }): Promise<unknown> {
    if (signal.aborted) throw signal.reason;
    if (this.lifecycle.state !== 'ready') throw notReadyError('llm', this.status());
    const timeout = AbortSignal.timeout(Math.max(0, deadline.at - Date.now()));
    let answer: JsonAnswer;
    try {
      answer = await requestJson(this.url(path), { method: 'POST', headers: this.headers(), body, signal: AbortSignal.any([signal, timeout, this.closing.signal]) });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (timeout.aborted) throw new GatewayError('timeout', deadline.message);
      if (this.closing.signal.aborted) throw new GatewayError('engine_failed', 'the LLM engine is shutting down', { retryable: true });
      this.recheckSoon();
      throw new GatewayError('engine_failed', `the call to the model server at ${this.host} failed (${networkCause(error)}); it may be repeated`, {
        retryable: true,
      });
    }
    if (answer.status < 200 || answer.status > 299) throw this.refusal(answer);
    if (answer.body === undefined) throw new GatewayError('engine_failed', `the model server at ${this.host} answered ${path} with something other than JSON`);
    return answer.body;
  }

  /** A non-2xx answer as the error kind it means for the caller. */
  private refusal(answer: JsonAnswer): GatewayError {
    const type = errorType(answer.body);
    const said = `the model server at ${this.host} answered ${answer.status}${type ? ` (${type})` : ''}`;
    const retryAfterSeconds = retryAfter(answer.headers['retry-after']);
    if (answer.status === 429) return new GatewayError('overloaded', `${said}: it is busy`, { retryAfterSeconds });
    if (answer.status === 503) {
      this.recheckSoon();
      return new GatewayError('engine_unavailable', `${said}: it cannot serve for now`, { retryable: true, retryAfterSeconds });
    }
    if (answer.status === 504 || answer.status === 408) return new GatewayError('timeout', `${said}: it timed out`);
    if (type === 'exceed_context_size_error') return new GatewayError('payload_too_large', `${said}: the prompt does not fit the model's context`);
    if (answer.status === 401 || answer.status === 403) this.recheckSoon();
    // Its 5xx may pass; its 4xx would be refused again.
    return new GatewayError('engine_failed', said, { retryable: answer.status >= 500 });
  }

  /** One readiness check: the server answers, serves the model, and (llama-server) says its context and counts tokens. */
  private async probe(): Promise<void> {
    try {
      const answer = await requestJson(this.url('/models'), { method: 'GET', headers: this.headers(), signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
      if (answer.status !== 200) {
        const type = errorType(answer.body);
        // llama-server answers 503 while it loads the model.
        const state = answer.status === 503 ? 'starting' : answer.status === 401 || answer.status === 403 ? 'failed' : 'unavailable';
        return this.setState(state, `the model server at ${this.host} answered GET /models with ${answer.status}${type ? ` (${type})` : ''}`);
      }
      const entries = modelEntries(answer.body);
      const entry = entries.find((candidate) => servesName(candidate, this.options.model));
      if (!entry) {
        const served = entries.map((candidate) => String(candidate.id)).slice(0, 10).join(', ') || 'none';
        return this.setState('unavailable', `the model server at ${this.host} does not serve LLM_MODEL_NAME ${this.options.model} (it serves: ${served})`);
      }
      this.context = numberOr(entry.meta?.n_ctx, numberOr(entry.max_model_len, this.options.contextTokens));
      this.tokenizer = await this.offersTokenizer();
      this.setState('ready', undefined);
    } catch (error) {
      // A server that does not answer is most often starting or restarting beside the gateway:
      // clients are told to retry (a wrong address shows in this reason on /readyz).
      this.setState('starting', `the model server at ${this.host} does not answer (${networkCause(error)})`);
    }
  }

  private async offersTokenizer(): Promise<boolean> {
    const answer = await requestJson(this.url('/tokenize'), {
      method: 'POST',
      headers: this.headers(),
      body: { content: 'a' },
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    }).catch(() => undefined);
    return answer?.status === 200 && Array.isArray((answer.body as { tokens?: unknown } | null)?.tokens);
  }

  private async poll(): Promise<void> {
    const poll = this.options.pollMs ?? DEFAULT_POLL_MS;
    while (!this.closed) {
      const woken = new Promise<void>((resolve) => (this.wake = resolve));
      const interval = this.lifecycle.state === 'ready' ? poll.ready : poll.notReady;
      await Promise.race([woken, sleep(interval, undefined, { ref: false, signal: this.closing.signal }).catch(() => undefined)]);
      if (!this.closed) await this.probe();
    }
  }

  /** After a call found the server gone or refusing, readiness is checked now rather than at the next poll. */
  private recheckSoon(): void {
    this.wake?.();
  }

  private setState(state: EngineState, reason: string | undefined): void {
    if (this.closed) return;
    if (state !== this.lifecycle.state || reason !== this.lifecycle.reason) {
      const level = state === 'ready' ? 'info' : 'warn';
      this.logger?.[level]({ state, reason, model: this.modelLabel, contextTokens: this.context, tokenizer: this.tokenizer }, 'the remote LLM changed state');
    }
    this.lifecycle.become(state, reason);
  }

  /**
   * `/tokenize` is llama-server's, at the server's root rather than under the API's `/v1`;
   * everything else is under the API base.
   */
  private url(path: string): string {
    const base = path === '/tokenize' ? this.options.baseUrl.replace(/\/v1$/, '') : this.options.baseUrl;
    return base + path;
  }

  private headers(): Record<string, string> {
    return this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {};
  }
}

/** Counts used when the server has no tokenizer endpoint; see countTokens. */
export function estimateTokens(text: string): number {
  const cjk = text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/gu)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 3);
}

function modelEntries(body: unknown): ModelEntry[] {
  const data = (body as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? data.filter((entry): entry is ModelEntry => typeof entry === 'object' && entry !== null) : [];
}

/** Whether a `/models` entry is the model: by id, or one of its aliases (llama-server's `--alias`). */
function servesName(entry: ModelEntry, name: string): boolean {
  return entry.id === name || (Array.isArray(entry.aliases) && entry.aliases.includes(name));
}

const numberOr = (value: unknown, fallback: number): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;

/** The `error.type` of an OpenAI-style error body when it is an identifier; never the server's free text, which may quote the prompt. */
function errorType(body: unknown): string | undefined {
  const type = (body as { error?: { type?: unknown } } | null | undefined)?.error?.type;
  return typeof type === 'string' && ERROR_TYPE.test(type) ? type : undefined;
}

function retryAfter(header: string | undefined): number {
  const seconds = Number(header);
  return header !== undefined && Number.isInteger(seconds) && seconds > 0 ? seconds : DEFAULT_RETRY_AFTER_SECONDS;
}

/** The system error code behind a failed call (ECONNREFUSED, ECONNRESET…), or the error's name. */
function networkCause(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'unknown error';
}
