import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Config } from '../config/index.js';
import type { Limiter } from '../platform/limiter.js';
import type { Logger } from '../platform/logger.js';
import { createAsrEngine } from './asr/index.js';
import { expectedHashOf, ModelTrustConflict, type ExpectedHash } from '../platform/models/trust.js';
import { createLlmEngine, createOpenAiLlmEngine } from './llm/index.js';
import { createOcrEngine } from './ocr/index.js';
import { ENGINE_NAMES } from '../contract/engines.js';
import type { AsrEngine, EngineName, EngineSet, EngineStatus, LlmEngine, OcrEngine } from './types.js';
import { notReadyError } from './readiness.js';
import { unavailableEngine } from './unavailable.js';

export { ENGINE_NAMES } from '../contract/engines.js';

/**
 * The only way operations reach engines: readiness is checked first (engine_unavailable:
 * retryable with Retry-After while the engine starts, not retryable when it is not installed or
 * failed), then the call waits its turn in that engine's limiter.
 */
export class Engines {
  constructor(
    private readonly engines: EngineSet,
    private readonly limiters: Record<EngineName, Limiter>,
  ) {}

  /** Fails fast, before any file is fetched, when an engine the operation needs is not ready. */
  requireReady(...names: EngineName[]): void {
    for (const name of names) {
      const status = this.engines[name].status();
      if (status.state !== 'ready') throw notReadyError(name, status);
    }
  }

  run<N extends EngineName, T>(
    name: N,
    signal: AbortSignal,
    task: (engine: EngineSet[N], signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    this.requireReady(name);
    return this.limiters[name].run((taskSignal) => task(this.engines[name], taskSignal), signal);
  }

  status(name: EngineName): EngineStatus {
    return this.engines[name].status();
  }

  limiter(name: EngineName): Limiter {
    return this.limiters[name];
  }

  /** Starts every engine loading in the background; the gateway serves meanwhile. */
  start(): void {
    for (const name of ENGINE_NAMES) {
      this.engines[name].start().catch(() => undefined); // each engine reports its own failure in status()
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled(ENGINE_NAMES.map((name) => this.engines[name].close()));
  }
}

type ModelLocation =
  | { path: string; expected: ExpectedHash | undefined }
  | { reason: string; state: 'unavailable' | 'failed' };

/**
 * The model file a setting names (a file in MODELS_DIR or a path) and the hash it must have, or
 * why there is none: not installed (unavailable), or vouched for by two lists that disagree (failed).
 */
function locateModel(config: Config, variable: string, file: string | undefined): ModelLocation {
  if (!file) return { reason: `${variable} is not set; install a model as models/README.md describes`, state: 'unavailable' };
  const path = isAbsolute(file) ? file : resolve(config.models.dir, file);
  if (!existsSync(path)) return { reason: `model file not found: ${file} (looked in ${config.models.dir})`, state: 'unavailable' };
  try {
    return { path, expected: expectedHashOf(config, path) };
  } catch (error) {
    if (error instanceof ModelTrustConflict) return { reason: error.message, state: 'failed' };
    throw error;
  }
}

function ocrEngine(config: Config, logger?: Logger): OcrEngine {
  if (config.ocr.engine === 'off') return unavailableEngine('ocr', 'OCR_ENGINE is off', false);
  // Traineddata from the npm packages is vouched for by the lockfile; a configured folder's by the manifest or SHA256SUMS.
  const expectedHash = config.ocr.tessdataDir ? (path: string) => expectedHashOf(config, path) : undefined;
  const created = createOcrEngine(config.ocr, logger, expectedHash);
  return 'engine' in created ? created.engine : unavailableEngine('ocr', created.reason, true);
}

/** Builds the engines this build ships, each reporting why it cannot serve when its model or runtime is missing. */
export function createEngines(config: Config, logger?: Logger): EngineSet {
  return {
    llm: config.llm.backend === 'openai' ? remoteLlm(config, logger) : localLlm(config, logger),
    ocr: ocrEngine(config, logger),
    asr: createAsr(config, logger),
  };
}

function localLlm(config: Config, logger?: Logger): LlmEngine {
  const model = locateModel(config, 'LLM_MODEL', config.llm.model);
  return 'path' in model
    ? createLlmEngine(config, model.path, model.expected, logger)
    : unavailableEngine('llm', model.reason, config.llm.model !== undefined, model.state);
}

function remoteLlm(config: Config, logger?: Logger): LlmEngine {
  const created = createOpenAiLlmEngine(config, logger);
  return 'engine' in created ? created.engine : unavailableEngine('llm', created.reason, true);
}

function createAsr(config: Config, logger?: Logger): AsrEngine {
  const configured = config.asr.model !== undefined;
  const model = locateModel(config, 'WHISPER_MODEL', config.asr.model);
  const vadModel = config.asr.vadModel ? locateModel(config, 'WHISPER_VAD_MODEL', config.asr.vadModel) : undefined;
  if ('reason' in model) return unavailableEngine('asr', model.reason, configured, model.state);
  if (vadModel && 'reason' in vadModel) return unavailableEngine('asr', vadModel.reason, configured, vadModel.state);
  return createAsrEngine(config.asr, model.path, { vadModelPath: vadModel?.path, expected: model.expected, logger });
}
