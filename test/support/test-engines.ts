import type { AsrEngine, AudioInput, EngineSet, LlmEngine, LlmJsonRequest, Transcript } from '../../src/engines/types.js';
import { enginesWith } from '../../scripts/lib/stand-in-engines.js';

interface Call {
  audio: AudioInput;
  signal: AbortSignal;
  finish(transcript: Transcript): void;
  fail(error: unknown): void;
}

/**
 * A controllable ASR engine for limiter and lifecycle tests only: every call waits until the
 * test finishes or fails it, so a test decides exactly how long the engine is busy.
 */
export class FakeAsrEngine implements AsrEngine {
  readonly name = 'asr' as const;
  readonly calls: Call[] = [];
  private waiters: Array<() => void> = [];

  status() {
    return { state: 'ready' as const, configured: true, model: 'fake' };
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {}

  transcribe(audio: AudioInput, signal: AbortSignal): Promise<Transcript> {
    return new Promise<Transcript>((resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      this.calls.push({ audio, signal, finish: resolve, fail: reject });
      this.waiters.splice(0).forEach((wake) => wake());
    });
  }

  /** Resolves once `count` calls have reached the engine. */
  async waitForCalls(count: number): Promise<Call[]> {
    while (this.calls.length < count) await new Promise<void>((wake) => this.waiters.push(wake));
    return this.calls;
  }
}

export function enginesWithAsr(asr: AsrEngine): EngineSet {
  return enginesWith({ asr });
}

export type ScriptedAnswer = (request: LlmJsonRequest<unknown>, callIndex: number) => unknown;

/**
 * An LLM engine for testing operation logic only: it answers what the test scripts, and its
 * answers pass through the request's zod schema as the real engine's do. Tokens are counted
 * as one per 1.5 characters.
 */
export class ScriptedLlmEngine implements LlmEngine {
  readonly name = 'llm' as const;
  readonly requests: Array<LlmJsonRequest<unknown>> = [];

  constructor(
    private readonly answer: ScriptedAnswer,
    private readonly options: { contextTokens?: number; model?: string } = {},
  ) {}

  status() {
    return { state: 'ready' as const, configured: true, model: this.options.model ?? 'scripted.gguf@000000000000' };
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {}

  async generateJson<T>(request: LlmJsonRequest<T>): Promise<T> {
    this.requests.push(request as LlmJsonRequest<unknown>);
    return request.schema.parse(await this.answer(request as LlmJsonRequest<unknown>, this.requests.length - 1));
  }

  async countTokens(text: string): Promise<number> {
    return Math.ceil(text.length / 1.5);
  }

  contextTokens(): number {
    return this.options.contextTokens ?? 4096;
  }
}
