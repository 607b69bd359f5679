import { join } from 'node:path';
import { SqliteAdviceJobStore, type AdviceJobStore } from './advice-jobs.js';
import { PostgresArtifactStore, SqliteArtifactStore, type ArtifactStore } from './artifacts.js';
import { LocalBlobStore, PostgresBlobStore, type BlobStore } from './blobs.js';
import { openDatabase } from './database.js';
import type { FileUrlSigner } from './file-tokens.js';
import { createFileUrlSigner, loadOrCreateSigningSecret, newSigningSecret } from './file-tokens.js';
import { PostgresAdviceJobStore } from './postgres-advice-jobs.js';
import { loadOrCreateSharedSecret, openPostgres } from './postgres.js';

export * from './advice-jobs.js';
export * from './artifacts.js';
export * from './blobs.js';
export * from './database.js';
export * from './file-tokens.js';
export * from './postgres-advice-jobs.js';
export * from './postgres.js';

export interface Stores {
  artifacts: ArtifactStore;
  adviceJobs: AdviceJobStore;
  blobs: BlobStore;
  fileUrls: FileUrlSigner;
  close(): Promise<void>;
}

export interface StoreOptions {
  dataDir: string;
  publicBaseUrl: string;
  signingSecret?: string;
  /** PostgreSQL shared by several replicas; SQLite in `dataDir` without it. */
  database?: { url: string; poolSize: number };
}

export async function openStores(opts: StoreOptions): Promise<Stores> {
  return opts.database ? openPostgresStores(opts, opts.database) : openSqliteStores(opts);
}

function openSqliteStores(opts: StoreOptions): Stores {
  const secret = loadOrCreateSigningSecret(opts.dataDir, opts.signingSecret);
  const db = openDatabase(opts.dataDir);
  try {
    return {
      artifacts: new SqliteArtifactStore(db),
      adviceJobs: new SqliteAdviceJobStore(db),
      blobs: new LocalBlobStore(db, join(opts.dataDir, 'blobs')),
      fileUrls: createFileUrlSigner(secret, opts.publicBaseUrl),
      close: async () => void db.close(),
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

async function openPostgresStores(opts: StoreOptions, database: { url: string; poolSize: number }): Promise<Stores> {
  const pool = await openPostgres(database.url, database.poolSize);
  try {
    const secret =
      opts.signingSecret === undefined
        ? await loadOrCreateSharedSecret(pool, 'file-signing', newSigningSecret)
        : loadOrCreateSigningSecret(opts.dataDir, opts.signingSecret);
    return {
      artifacts: new PostgresArtifactStore(pool),
      adviceJobs: new PostgresAdviceJobStore(pool),
      blobs: new PostgresBlobStore(pool),
      fileUrls: createFileUrlSigner(secret, opts.publicBaseUrl),
      close: () => pool.end(),
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}
