/**
 * Which sha256 a model file must have: the models manifest's (MODELS_MANIFEST) when it lists the
 * file with a hash, else the SHA256SUMS beside the file (written by npm run models:fetch and
 * models:install). A file neither vouches for loads as unverified; MODELS_VERIFY=off skips the check.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Config } from '../config/index.js';
import type { ExpectedHash } from './model-version.js';

export const CHECKSUMS_FILE = 'SHA256SUMS';

/** `<hex>  <file>` lines, as sha256sum writes them. */
export function parseChecksums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]{64}) [ *](.+)$/.exec(line.trim());
    if (match) sums.set(match[2]!, match[1]!);
  }
  return sums;
}

function readIfPresent(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

function manifestHash(manifestPath: string, file: string): string | undefined {
  const text = readIfPresent(manifestPath);
  if (text === undefined) return undefined;
  const manifest = JSON.parse(text) as { models?: Array<{ file?: unknown; sha256?: unknown }> };
  const entry = manifest.models?.find((model) => model.file === file);
  return typeof entry?.sha256 === 'string' ? entry.sha256 : undefined;
}

export function expectedHashOf(config: Config, modelPath: string): ExpectedHash | undefined {
  if (!config.models.verify) return undefined;
  const file = basename(modelPath);
  const fromManifest = manifestHash(config.models.manifestPath, file);
  if (fromManifest) return { sha256: fromManifest, source: config.models.manifestPath };
  const checksumsPath = join(dirname(modelPath), CHECKSUMS_FILE);
  const recorded = parseChecksums(readIfPresent(checksumsPath) ?? '').get(file);
  return recorded ? { sha256: recorded, source: checksumsPath } : undefined;
}
