/**
 * The gateway's configuration: read once at start from environment variables, as the settings
 * table (settings.ts) declares them.
 */
import { deprecatedSettings, loadSettings, type ConfigOf } from './define.js';
import { SETTINGS } from './settings.js';

export { ConfigError, readConfigOrExit } from './define.js';

export type Config = ConfigOf<typeof SETTINGS>;
export type AsrSettings = Config['asr'];
export type OcrSettings = Config['ocr'];

/** What each engine's limiter is told: calls at once, calls waiting, longest wait. */
export interface LimiterSettings {
  maxRunning: number;
  maxQueued: number;
  queueTimeoutMs: number;
}

/** Reads the gateway's configuration from environment variables; a ConfigError names every bad one. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  return loadSettings(SETTINGS, source);
}

/** One line per setting that `source` writes as before 0.2 (old name or boolean spelling), for the log at start. */
export function configDeprecations(source: NodeJS.ProcessEnv = process.env): string[] {
  return deprecatedSettings(SETTINGS, source);
}
