export { CHECKSUMS_FILE, parseChecksums, readChecksums, sha256OfFile, writeChecksums } from './checksums.js';
export { download, type Downloaded, type DownloadOptions } from './download.js';
export { loadManifest, profileModels, type Manifest, type ModelEntry } from './manifest.js';
export { expectedHash, expectedHashOf, isConflict, type ExpectedHash, type HashConflict, type VouchedHash } from './trust.js';
