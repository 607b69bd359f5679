import type { AsrSettings } from '../../config.js';
import type { Logger } from '../../platform/logger.js';
import type { AsrEngine } from '../types.js';
import { WhisperEngine } from './engine.js';

export { WhisperEngine, findExecutable, type WhisperEngineOptions } from './engine.js';

/** The whisper.cpp engine for `settings`, its model (and VAD model) already located. */
export function createAsrEngine(settings: AsrSettings, modelPath: string, vadModelPath?: string, logger?: Logger): AsrEngine {
  return new WhisperEngine({
    settings,
    modelPath,
    ...(vadModelPath ? { vadModelPath } : {}),
    ...(logger ? { logger } : {}),
  });
}
