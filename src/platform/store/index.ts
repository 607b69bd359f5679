import { join } from 'node:path';
import { createLogger, type Logger } from '../logger.js';
import { SqlArtifactStore, ARTIFACT_MIGRATIONS, type ArtifactStore } from './artifacts.js';
import { AUDIT_MIGRATIONS, SqlAuditStore, type AuditStore } from './audit.js';
import { BLOB_MIGRATIONS, BlobsInFiles, blobsInRows, SqlBlobStore, type BlobBytes, type BlobStore } from './blobs.js';
import type { FileUrlSigner } from './file-tokens.js';
import { createFileUrlSigner, loadOrCreateSigningSecret, newSigningSecret } from './file-tokens.js';
import { migrate, type Migration } from './migrations.js';
import { postgresOpenFailure, postgresStoreDatabase } from './postgres.js';
import { loadOrCreateSharedSecret, SECRET_MIGRATIONS } from './secrets.js';
import { openSqliteFile, sqliteStoreDatabase } from './sqlite.js';
import type { StoreDatabase } from './store-database.js';

export * from './artifacts.js';
export * from './audit.js';
export * from './blobs.js';
export * from './file-tokens.js';
export * from './migrations.js';
export * from './postgres.js';
export * from './secrets.js';
export * from './sqlite.js';
export * from './store-database.js';

export interface Stores {
  /** The database itself, for the stores an operation keeps (their tables migrated by `openStores`). */
  database: StoreDatabase;
  artifacts: ArtifactStore;
  /** The record of every request to the AI operations and the operator routes. */
  audit: AuditStore;
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
  /** The tables of the stores operations keep, migrated with the gateway's own. */
  migrations?: readonly Migration[];
  /** Where PostgreSQL's LISTEN connection says it broke and is back; silent without. */
  logger?: Logger;
}

export async function openStores(opts: StoreOptions): Promise<Stores> {
  return opts.database ? openPostgresStores(opts, opts.database) : openSqliteStores(opts);
}

async function openSqliteStores(opts: StoreOptions): Promise<Stores> {
  const secret = loadOrCreateSigningSecret(opts.dataDir, opts.signingSecret);
  const database = sqliteStoreDatabase(openSqliteFile(opts.dataDir));
  return withDatabase(database, async () => {
    await migrate(database, [...ARTIFACT_MIGRATIONS, ...BLOB_MIGRATIONS, ...AUDIT_MIGRATIONS, ...(opts.migrations ?? [])]);
    return storesOn(database, new BlobsInFiles(join(opts.dataDir, 'blobs')), createFileUrlSigner(secret, opts.publicBaseUrl));
  });
}

async function openPostgresStores(opts: StoreOptions, connection: { url: string; poolSize: number }): Promise<Stores> {
  const database = postgresStoreDatabase(connection.url, connection.poolSize, opts.logger ?? createLogger('silent'));
  return withDatabase(database, async () => {
    // The file-link key lives in the database every replica shares (on SQLite, in the data folder).
    await migrate(database, [...ARTIFACT_MIGRATIONS, ...BLOB_MIGRATIONS, ...SECRET_MIGRATIONS, ...AUDIT_MIGRATIONS, ...(opts.migrations ?? [])]).catch(
      (error: unknown) => Promise.reject(postgresOpenFailure(error)),
    );
    const secret =
      opts.signingSecret === undefined
        ? await loadOrCreateSharedSecret(database, 'file-signing', newSigningSecret)
        : loadOrCreateSigningSecret(opts.dataDir, opts.signingSecret);
    return storesOn(database, blobsInRows, createFileUrlSigner(secret, opts.publicBaseUrl));
  });
}

function storesOn(database: StoreDatabase, blobBytes: BlobBytes, fileUrls: FileUrlSigner): Stores {
  return {
    database,
    artifacts: new SqlArtifactStore(database),
    audit: new SqlAuditStore(database),
    blobs: new SqlBlobStore(database, blobBytes),
    fileUrls,
    close: () => database.close(),
  };
}

/** Opens the stores on `database`, closing it if that fails. */
async function withDatabase(database: StoreDatabase, open: () => Promise<Stores>): Promise<Stores> {
  try {
    return await open();
  } catch (error) {
    await database.close();
    throw error;
  }
}
