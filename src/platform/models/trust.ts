/**
 * Which sha256 a model file must have, one rule for the gateway and the models tool: the
 * models manifest's hash when it lists the file with one (the publisher's); else the line of
 * SHA256SUMS beside the file (recorded by the models tool when it downloaded or installed it);
 * else nothing vouches for the file and it loads as unverified. When both list the file with
 * different hashes, nobody can say which is right: the file is refused (fail closed).
 * MODELS_VERIFY=false skips the check.
 */
import { basename, dirname, join } from 'node:path';
import type { Config } from '../../config/index.js';
import { CHECKSUMS_FILE, readChecksumsSync } from './checksums.js';
import { manifestHashOf } from './manifest.js';

/** A hash a trusted list vouches for, and which list. */
export interface ExpectedHash {
  sha256: string;
  source: string;
}

export class ModelTrustConflict extends Error {
  constructor(file: string, manifest: ExpectedHash, recorded: ExpectedHash) {
    super(
      `${file}: ${manifest.source} vouches for sha256 ${manifest.sha256.slice(0, 12)}…, but ${recorded.source} for ` +
        `${recorded.sha256.slice(0, 12)}…; fetch or install the file again so the two agree`,
    );
    this.name = 'ModelTrustConflict';
  }
}

/** The hash `file` must have, from the manifest's and SHA256SUMS' claims (either may be absent). */
export function vouchedHash(
  file: string,
  manifest: ExpectedHash | undefined,
  recorded: ExpectedHash | undefined,
): ExpectedHash | undefined {
  if (manifest && recorded && manifest.sha256 !== recorded.sha256) throw new ModelTrustConflict(file, manifest, recorded);
  return manifest ?? recorded;
}

/** The hash the model at `modelPath` must have, by the configured lists; throws ModelTrustConflict when they disagree about it. */
export function expectedHashOf(config: Config, modelPath: string): ExpectedHash | undefined {
  if (!config.models.verify) return undefined;
  const file = basename(modelPath);
  const fromManifest = manifestHashOf(config.models.manifestPath, file);
  const recorded = readChecksumsSync(dirname(modelPath)).get(file);
  return vouchedHash(
    file,
    fromManifest ? { sha256: fromManifest, source: config.models.manifestPath } : undefined,
    recorded ? { sha256: recorded, source: join(dirname(modelPath), CHECKSUMS_FILE) } : undefined,
  );
}

/** Refuses a model whose sha256 differs from the one vouched for; answers whether it was verified at all. */
export function checkExpectedHash(path: string, sha256: string, expected: ExpectedHash | undefined): boolean {
  if (!expected) return false;
  if (expected.sha256 !== sha256) {
    throw new Error(
      `${basename(path)} has sha256 ${sha256.slice(0, 12)}…, but ${expected.source} expects ${expected.sha256.slice(0, 12)}…: ` +
        'reinstall it (npm run models:install) or set MODELS_VERIFY=false to load it anyway',
    );
  }
  return true;
}
