/**
 * The gateway's configuration: read once at start from environment variables, as the settings
 * table (settings.ts) declares them.
 */
import { accessProblems } from './access.js';
import { ConfigError, deprecatedSettings, loadSettings, type ConfigOf } from './define.js';
import { SETTINGS } from './settings.js';
import { MAKE_WEBHOOK_SECRET } from './webhook-secret.js';

export { ConfigError, readConfigOrExit } from './define.js';
export { accessTokens, firstToken, type NamedToken, type Role } from './access.js';
export { webhookKey } from './webhook-secret.js';

export type Config = ConfigOf<typeof SETTINGS>;
export type AsrSettings = Config['asr'];
export type OcrSettings = Config['ocr'];

/** What each engine's limiter is told: calls at once, calls waiting, longest wait. */
export interface LimiterSettings {
  maxRunning: number;
  maxQueued: number;
  queueTimeoutMs: number;
}

/**
 * Reads the gateway's configuration from environment variables; a ConfigError names every bad
 * one, and every combination the gateway refuses to start with (closed unless configured).
 */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const config = loadSettings(SETTINGS, source);
  const problems = [...accessProblems({ host: config.server.host, ...config.security }), ...callbackProblems(config)];
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function callbackProblems({ callback }: Config): string[] {
  if (callback.baseUrl === undefined || callback.secret !== undefined || callback.allowUnsigned) return [];
  return [`CALLBACK_SECRET: required with CALLBACK_BASE_URL (${MAKE_WEBHOOK_SECRET}), or CALLBACK_ALLOW_UNSIGNED=true to send callbacks unsigned`];
}

/** One line per setting that `source` writes as before 0.2 (old name or boolean spelling), for the log at start. */
export function configDeprecations(source: NodeJS.ProcessEnv = process.env): string[] {
  return deprecatedSettings(SETTINGS, source);
}
