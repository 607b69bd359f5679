import type { AsrEngine, AudioInput, EngineSet, Transcript } from '../../src/engines/types.js';
import { unavailableEngine } from '../../src/engines/unavailable.js';

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
  return {
    llm: unavailableEngine('llm', 'not used in this test', false),
    ocr: unavailableEngine('ocr', 'not used in this test', false),
    asr,
  };
}
