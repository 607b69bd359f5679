import { notReadyError } from './readiness.js';
import type { AsrEngine, EngineName, LlmEngine, OcrEngine } from './types.js';

type EngineOfAnyKind<N extends EngineName> = Omit<LlmEngine, 'name'> &
  Omit<OcrEngine, 'name'> &
  Omit<AsrEngine, 'name'> & { name: N };

/**
 * The permanent stand-in for an engine whose model or runtime is not installed (`unavailable`),
 * or whose model cannot be trusted (`failed`): it says why on /readyz and every call answers
 * engine_unavailable, so the gateway starts without models.
 */
export function unavailableEngine<N extends EngineName>(
  name: N,
  reason: string,
  configured: boolean,
  state: 'unavailable' | 'failed' = 'unavailable',
): EngineOfAnyKind<N> {
  const fail = async (): Promise<never> => {
    throw notReadyError(name, { state, reason, configured });
  };
  return {
    name,
    status: () => ({ state, reason, configured }),
    start: async () => {},
    close: async () => {},
    generateJson: fail,
    countTokens: fail,
    contextTokens: () => 0,
    recognize: fail,
    transcribe: fail,
  };
}
