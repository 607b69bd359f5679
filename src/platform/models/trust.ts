/**
 * Which sha256 a model file must have: one rule for the gateway, when an engine loads a model, and
 * for the models tool (fetch, bundle, install, verify).
 *
 *   - the models manifest's sha256 when it lists the file;
 *   - else the SHA256SUMS line beside the file (written by models:fetch and models:install);
 *   - else nothing vouches for the file: it is unverified.
 *
 * When both list the file with different hashes, neither is believed: that is a conflict, and
 * both the gateway and the tool refuse the file. MODELS_VERIFY=off makes the gateway skip the check.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Config } from '../../config/index.js';
import { CHECKSUMS_FILE, parseChecksums } from './checksums.js';
import { manifestHashOf } from './manifest.js';

/** A hash a trusted list vouches for, and which list. */
export interface VouchedHash {
  sha256: string;
  source: string;
}

/** The trusted lists disagree about a file: no hash can satisfy it. */
export interface HashConflict {
  conflict: string;
}

/** What a model file must hash to; undefined where nothing vouches for it. */
export type ExpectedHash = VouchedHash | HashConflict;

const short = (sha256: string) => `${sha256.slice(0, 12)}…`;

/** The rule: the manifest's hash, else the SHA256SUMS one; a conflict when they differ. */
export function expectedHash(file: string, manifest: VouchedHash | undefined, checksums: VouchedHash | undefined): ExpectedHash | undefined {
  if (manifest && checksums && manifest.sha256 !== checksums.sha256) {
    return { conflict: `${file}: ${manifest.source} lists sha256 ${short(manifest.sha256)}, but ${checksums.source} lists ${short(checksums.sha256)}` };
  }
  return manifest ?? checksums;
}

export const isConflict = (expected: ExpectedHash | undefined): expected is HashConflict => expected !== undefined && 'conflict' in expected;

/** The gateway's side: what the model at `modelPath` must hash to per MODELS_MANIFEST and the SHA256SUMS beside it. */
export function expectedHashOf(config: Config, modelPath: string): ExpectedHash | undefined {
  if (!config.models.verify) return undefined;
  const file = basename(modelPath);
  const listed = manifestHashOf(config.models.manifestPath, file);
  const checksumsPath = join(dirname(modelPath), CHECKSUMS_FILE);
  const recorded = existsSync(checksumsPath) ? parseChecksums(readFileSync(checksumsPath, 'utf8')).get(file) : undefined;
  return expectedHash(
    file,
    listed ? { sha256: listed, source: config.models.manifestPath } : undefined,
    recorded ? { sha256: recorded, source: checksumsPath } : undefined,
  );
}
