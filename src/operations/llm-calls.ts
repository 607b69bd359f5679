import type { Engines } from '../engines/registry.js';
import type { LlmJsonRequest } from '../engines/types.js';

export type LlmCalls = ReturnType<typeof llmCalls>;

/** Every model call goes through the LLM limiter, carrying the caller's abort signal. */
export function llmCalls(engines: Engines, signal: AbortSignal) {
  return {
    generate: <T>(request: LlmJsonRequest<T>) =>
      engines.run('llm', signal, (engine, taskSignal) => engine.generateJson(request, taskSignal)),
    /** Token counts of several texts and the context size, in one pass through the limiter. */
    measure: (texts: string[]) =>
      engines.run('llm', signal, async (engine, taskSignal) => ({
        contextTokens: engine.contextTokens(),
        tokens: await Promise.all(texts.map((text) => engine.countTokens(text, taskSignal))),
      })),
  };
}
