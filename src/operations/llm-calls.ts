import type { Engines } from '../engines/registry.js';
import type { LlmJsonRequest } from '../engines/types.js';
import { isGatewayError } from '../errors.js';
import type { OperationContext } from './context.js';

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

/**
 * A rules answer refined by the model: the model is asked only when it is ready, and a failed
 * call (overloaded, timeout, a broken answer) keeps the rules' answer, logged by its kind.
 */
export async function refineWithLlm<R, A>(
  context: Pick<OperationContext, 'engines' | 'signal' | 'log'>,
  what: string,
  rules: R,
  request: () => LlmJsonRequest<A>,
  merge: (answer: A) => R,
): Promise<R> {
  if (context.engines.status('llm').state !== 'ready') return rules;
  try {
    return merge(await llmCalls(context.engines, context.signal).generate(request()));
  } catch (error) {
    if (context.signal.aborted) throw error;
    context.log.warn({ err_kind: isGatewayError(error) ? error.kind : 'unknown' }, `${what} refinement failed; rules answer kept`);
    return rules;
  }
}
