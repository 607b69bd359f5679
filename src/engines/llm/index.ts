import type { Config } from '../../config/index.js';
import type { Logger } from '../../platform/logger.js';
import type { ExpectedHash } from '../../platform/models/trust.js';
import type { LlmEngine } from '../types.js';
import { LlamaCppEngine } from './engine.js';
import { OpenAiEngine } from './openai.js';

export { LlamaCppEngine, type LlamaCppEngineOptions } from './engine.js';
export { grammarSchemaFor, responseFormatSchemaFor, toGrammarSchema } from './json-schema.js';
export { OpenAiEngine, estimateTokens, type OpenAiEngineOptions } from './openai.js';

/** The node-llama-cpp engine for `config.llm`, its model at `modelPath` (absolute) with the hash it must have. */
export function createLlmEngine(config: Config, modelPath: string, expected: ExpectedHash | undefined, logger?: Logger): LlmEngine {
  return new LlamaCppEngine({
    settings: {
      modelPath,
      gpu: config.llm.gpu,
      gpuLayers: config.llm.gpuLayers,
      parallel: config.llm.parallel,
      contextSize: config.llm.contextSize,
      threads: config.llm.threads,
      ...(expected ? { expected } : {}),
    },
    timeoutMs: config.llm.timeoutMs,
    ...(logger ? { logger } : {}),
  });
}

/**
 * The engine of `LLM_BACKEND=openai`: the operator's OpenAI-compatible server, or why it cannot
 * be used (a setting missing).
 */
export function createOpenAiLlmEngine(config: Config, logger?: Logger): { engine: LlmEngine } | { reason: string } {
  const { baseUrl, modelName, apiKey } = config.llm;
  if (!baseUrl) return { reason: 'LLM_BACKEND is openai but LLM_BASE_URL is not set' };
  if (!modelName) return { reason: 'LLM_BACKEND is openai but LLM_MODEL_NAME is not set' };
  const engine = new OpenAiEngine({
    baseUrl,
    model: modelName,
    ...(apiKey ? { apiKey } : {}),
    timeoutMs: config.llm.timeoutMs,
    contextTokens: config.llm.contextSize,
    ...(logger ? { logger } : {}),
  });
  return { engine };
}
