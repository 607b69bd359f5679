import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open as openFile, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Kysely } from 'kysely';
import { makePrivateDir } from '../private-files.js';
import { columnTypes, type Migration } from './migrations.js';
import type { StoreDatabase } from './store-database.js';

export interface BlobMeta {
  key: string;
  contentType: string;
  size: number;
  createdAt: Date;
  expiresAt: Date;
}

/** Files the gateway produces for download, kept until they expire. */
export interface BlobStore {
  put(bytes: Buffer, opts: { contentType: string; ttlSeconds: number }): Promise<BlobMeta>;
  /** put() of the file at `path`, copied without holding it in memory where blobs are files (the caller deletes it). */
  putFile(path: string, opts: { contentType: string; ttlSeconds: number }): Promise<BlobMeta>;
  /** Null when the blob is absent or expired. */
  open(key: string): Promise<{ meta: BlobMeta; stream: NodeJS.ReadableStream } | null>;
  delete(key: string): Promise<void>;
  /** Deletes expired blobs, file and row; returns how many. */
  sweepExpired(now?: Date): Promise<number>;
  /**
   * Deletes the bytes a killed process's put() left without a row (a half-written file, a file
   * written just before its row); returns how many. Only before this store is in use: a put in
   * flight has its file before its row.
   */
  sweepLeftovers(): Promise<number>;
}

interface BlobRow {
  key: string;
  content_type: string;
  size: number;
  created_at: number;
  expires_at: number;
}

type BlobTables = {
  /** `bytes` only where the files are kept in the database (`BlobsInRows`). */
  blobs: BlobRow & { bytes: Buffer | null };
};

export const BLOB_MIGRATIONS: readonly Migration[] = [
  {
    concept: 'blobs',
    version: 1,
    name: 'blobs',
    appliedBy: { sqlite: 2, postgres: 1 },
    up: async (db, dialect) => {
      await db.schema
        .createTable('blobs')
        .addColumn('key', 'text', (col) => col.primaryKey())
        .addColumn('content_type', 'text', (col) => col.notNull())
        .addColumn('size', 'integer', (col) => col.notNull())
        .addColumn('bytes', columnTypes(dialect).bytes)
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .addColumn('expires_at', 'bigint', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('blobs_expires_at').on('blobs').column('expires_at').execute();
    },
  },
];

/** 18 random bytes in base64url: exactly 24 characters of [A-Za-z0-9_-]. */
const KEY_PATTERN = /^[A-Za-z0-9_-]{24}$/;

export function isBlobKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

function newBlobKey(): string {
  return randomBytes(18).toString('base64url');
}


function toMeta(row: BlobRow): BlobMeta {
  return {
    key: row.key,
    contentType: row.content_type,
    size: row.size,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
  };
}

/**
 * Where a produced file's bytes are kept: files in a folder beside the database (one gateway), or
 * the rows themselves (PostgreSQL), so a link minted by one replica is served by every other
 * without a shared volume. A produced file is a few MB at most, read once or twice.
 */
export interface BlobBytes {
  /** True where the bytes are the row's `bytes` column. */
  readonly inRows: boolean;
  /** The bytes' own column value, or null where they are kept elsewhere (written before the row). */
  store(key: string, bytes: Buffer): Promise<Buffer | null>;
  /** store() of the file at `path`. */
  storeFile(key: string, path: string): Promise<Buffer | null>;
  /** Null when the bytes are missing. */
  read(key: string, inRow: Buffer | null): Promise<NodeJS.ReadableStream | null>;
  remove(key: string): Promise<void>;
  /** Deletes bytes kept apart from their row whose key has no row (`keysWithRows`); returns how many. */
  removeOrphans(keysWithRows: () => Promise<ReadonlySet<string>>): Promise<number>;
}

/** A file being written by store(): renamed to its key once whole. */
const HALF_WRITTEN = /^\.[A-Za-z0-9_-]{24}\.tmp$/;

export class BlobsInFiles implements BlobBytes {
  readonly inRows = false;

  constructor(private readonly dir: string) {
    makePrivateDir(dir);
  }

  store(key: string, bytes: Buffer): Promise<null> {
    return this.writeWhole(key, (tempPath) => writeFile(tempPath, bytes, { mode: 0o600, flag: 'wx' }));
  }

  storeFile(key: string, path: string): Promise<null> {
    return this.writeWhole(key, (tempPath) => pipeline(createReadStream(path), createWriteStream(tempPath, { mode: 0o600, flags: 'wx' })));
  }

  /** `write` fills a half-written file that is renamed to the key once whole. */
  private async writeWhole(key: string, write: (tempPath: string) => Promise<void>): Promise<null> {
    const tempPath = join(this.dir, `.${key}.tmp`);
    try {
      await write(tempPath);
      await rename(tempPath, this.pathOf(key));
    } catch (error) {
      await rm(tempPath, { force: true });
      throw error;
    }
    return null;
  }

  async read(key: string): Promise<NodeJS.ReadableStream | null> {
    const handle = await openFile(this.pathOf(key), 'r').catch(nullWhenMissing);
    return handle === null ? null : handle.createReadStream();
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async removeOrphans(keysWithRows: () => Promise<ReadonlySet<string>>): Promise<number> {
    const names = await readdir(this.dir);
    const withRows = await keysWithRows();
    const orphans = names.filter((name) => HALF_WRITTEN.test(name) || (isBlobKey(name) && !withRows.has(name)));
    for (const name of orphans) await rm(join(this.dir, name), { force: true });
    return orphans.length;
  }

  private pathOf(key: string): string {
    return join(this.dir, key);
  }
}

function nullWhenMissing(error: unknown): null {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
  throw error;
}

export const blobsInRows: BlobBytes = {
  inRows: true,
  store: async (_key, bytes) => bytes,
  storeFile: (_key, path) => readFile(path),
  read: async (_key, inRow) => (inRow === null ? null : Readable.from([inRow])),
  remove: async () => undefined,
  removeOrphans: async () => 0,
};

export class SqlBlobStore implements BlobStore {
  private readonly db: Kysely<BlobTables>;

  constructor(
    database: StoreDatabase,
    private readonly bytes: BlobBytes,
  ) {
    this.db = database.db.withTables<BlobTables>();
  }

  put(bytes: Buffer, opts: { contentType: string; ttlSeconds: number }): Promise<BlobMeta> {
    return this.insert(bytes.length, opts, (key) => this.bytes.store(key, bytes));
  }

  async putFile(path: string, opts: { contentType: string; ttlSeconds: number }): Promise<BlobMeta> {
    const { size } = await stat(path);
    return this.insert(size, opts, (key) => this.bytes.storeFile(key, path));
  }

  /** A new blob of `size` bytes: its bytes stored (`storeBytes`), then its row. */
  private async insert(
    size: number,
    opts: { contentType: string; ttlSeconds: number },
    storeBytes: (key: string) => Promise<Buffer | null>,
  ): Promise<BlobMeta> {
    const key = newBlobKey();
    const createdAt = Date.now();
    const row = { key, content_type: opts.contentType, size, created_at: createdAt, expires_at: createdAt + opts.ttlSeconds * 1000 };
    const inRow = await storeBytes(key);
    try {
      await this.db
        .insertInto('blobs')
        .values(inRow === null ? row : { ...row, bytes: inRow })
        .execute();
    } catch (error) {
      await this.bytes.remove(key);
      throw error;
    }
    return toMeta(row);
  }

  async open(key: string): Promise<{ meta: BlobMeta; stream: NodeJS.ReadableStream } | null> {
    if (!isBlobKey(key)) return null;
    const row = await this.db
      .selectFrom('blobs')
      .select(['key', 'content_type', 'size', 'created_at', 'expires_at'])
      .$if(this.bytes.inRows, (query) => query.select('bytes'))
      .where('key', '=', key)
      .where('expires_at', '>', Date.now())
      .executeTakeFirst();
    if (row === undefined) return null;
    const stream = await this.bytes.read(key, 'bytes' in row ? (row.bytes as Buffer | null) : null);
    return stream === null ? null : { meta: toMeta(row), stream };
  }

  async delete(key: string): Promise<void> {
    if (!isBlobKey(key)) return;
    await this.db.deleteFrom('blobs').where('key', '=', key).execute();
    await this.bytes.remove(key);
  }

  async sweepExpired(now: Date = new Date()): Promise<number> {
    const swept = await this.db.deleteFrom('blobs').where('expires_at', '<=', now.getTime()).returning('key').execute();
    for (const { key } of swept) await this.bytes.remove(key);
    return swept.length;
  }

  sweepLeftovers(): Promise<number> {
    return this.bytes.removeOrphans(async () => {
      const rows = await this.db.selectFrom('blobs').select('key').execute();
      return new Set(rows.map((row) => row.key));
    });
  }
}
