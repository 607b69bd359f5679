import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { SqliteAdviceJobStore, type AdviceJobStore } from './advice-jobs.js';
import type { ArtifactStore } from './artifacts.js';
import { SqliteArtifactStore } from './artifacts.js';
import type { BlobStore } from './blobs.js';
import { LocalBlobStore } from './blobs.js';
import { openDatabase } from './database.js';
import type { FileUrlSigner } from './file-tokens.js';
import { createFileUrlSigner, loadOrCreateSigningSecret } from './file-tokens.js';

export * from './advice-jobs.js';
export * from './artifacts.js';
export * from './blobs.js';
export * from './database.js';
export * from './file-tokens.js';

export interface Stores {
  db: Database.Database;
  artifacts: ArtifactStore;
  adviceJobs: AdviceJobStore;
  blobs: BlobStore;
  fileUrls: FileUrlSigner;
  close(): void;
}

export function openStores(opts: { dataDir: string; publicBaseUrl: string; signingSecret?: string }): Stores {
  const secret = loadOrCreateSigningSecret(opts.dataDir, opts.signingSecret);
  const db = openDatabase(opts.dataDir);
  try {
    return {
      db,
      artifacts: new SqliteArtifactStore(db),
      adviceJobs: new SqliteAdviceJobStore(db),
      blobs: new LocalBlobStore(db, join(opts.dataDir, 'blobs')),
      fileUrls: createFileUrlSigner(secret, opts.publicBaseUrl),
      close: () => db.close(),
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
