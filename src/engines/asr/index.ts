import type { AsrSettings } from '../../config/index.js';
import type { Logger } from '../../platform/logger.js';
import type { ExpectedHash } from '../../platform/models/trust.js';
import type { AsrEngine } from '../types.js';
import { WhisperEngine } from './engine.js';

export { WhisperEngine, findExecutable, type WhisperEngineOptions } from './engine.js';
export { joinSegmentTexts } from './transcript-text.js';
export { ffmpegArgs } from './ffmpeg.js';
export { whisperArgs, type WhisperSettings } from './whisper-cli.js';

/** The whisper.cpp engine for `settings`, its model (and VAD model) already located. */
export function createAsrEngine(
  settings: AsrSettings,
  modelPath: string,
  options: { vadModelPath?: string | undefined; expected?: ExpectedHash | undefined; logger?: Logger | undefined } = {},
): AsrEngine {
  const { vadModelPath, expected, logger } = options;
  return new WhisperEngine({
    settings,
    modelPath,
    ...(expected ? { expected } : {}),
    ...(vadModelPath ? { vadModelPath } : {}),
    ...(logger ? { logger } : {}),
  });
}
