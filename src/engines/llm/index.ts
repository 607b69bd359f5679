import type { Config } from '../../config/index.js';
import type { Logger } from '../../platform/logger.js';
import type { ExpectedHash } from '../../platform/models/trust.js';
import type { LlmEngine } from '../types.js';
import { LlamaCppEngine } from './engine.js';

export { LlamaCppEngine, type LlamaCppEngineOptions } from './engine.js';
export { grammarSchemaFor, toGrammarSchema } from './json-schema.js';

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
