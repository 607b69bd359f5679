/**
 * The hash each model the gateway loads must have (MODELS_MANIFEST, then the SHA256SUMS beside
 * the file, by the one rule of platform/models/trust.ts); MODELS_VERIFY=off skips the check.
 */
import { basename, dirname, join } from 'node:path';
import type { Config } from '../config/index.js';
import { CHECKSUMS_FILE, readChecksumsSync } from '../platform/models/checksums.js';
import { manifestHashOf } from '../platform/models/manifest.js';
import { vouchedHash, type ExpectedHash } from '../platform/models/trust.js';

/** Throws ModelTrustConflict when the manifest and SHA256SUMS disagree about the file. */
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
