import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { open as openFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type Database from 'better-sqlite3';
import type pg from 'pg';

export interface BlobMeta {
  key: string;
  contentType: string;
  size: number;
  createdAt: Date;
  expiresAt: Date;
}

/** Files the gateway produces (de-identified images, PDFs), kept until they expire. */
export interface BlobStore {
  put(bytes: Buffer, opts: { contentType: string; ttlSeconds: number }): Promise<BlobMeta>;
  /** Null when the blob is absent or expired. */
  open(key: string): Promise<{ meta: BlobMeta; stream: NodeJS.ReadableStream } | null>;
  delete(key: string): Promise<void>;
  /** Deletes expired blobs, file and row; returns how many. */
  sweepExpired(now?: Date): Promise<number>;
}

interface BlobRow {
  key: string;
  content_type: string;
  size: number;
  created_at: number;
  expires_at: number;
}

/** 18 random bytes in base64url: exactly 24 characters of [A-Za-z0-9_-]. */
const KEY_PATTERN = /^[A-Za-z0-9_-]{24}$/;

export function isBlobKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

function newBlobKey(): string {
  return randomBytes(18).toString('base64url');
}

function newBlobRow(key: string, bytes: Buffer, opts: { contentType: string; ttlSeconds: number }): BlobRow {
  const createdAt = Date.now();
  return { key, content_type: opts.contentType, size: bytes.length, created_at: createdAt, expires_at: createdAt + opts.ttlSeconds * 1000 };
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

export class LocalBlobStore implements BlobStore {
  private readonly insertRow: Database.Statement<[BlobRow]>;
  private readonly selectByKey: Database.Statement<[string], BlobRow>;
  private readonly deleteByKey: Database.Statement<[string]>;
  private readonly selectExpiredKeys: Database.Statement<[number], string>;

  constructor(
    db: Database.Database,
    private readonly dir: string,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.insertRow = db.prepare(
      `INSERT INTO blobs (key, content_type, size, created_at, expires_at)
       VALUES (@key, @content_type, @size, @created_at, @expires_at)`,
    );
    this.selectByKey = db.prepare('SELECT * FROM blobs WHERE key = ?');
    this.deleteByKey = db.prepare('DELETE FROM blobs WHERE key = ?');
    this.selectExpiredKeys = db.prepare<[number], string>('SELECT key FROM blobs WHERE expires_at <= ?').pluck();
  }

  async put(bytes: Buffer, opts: { contentType: string; ttlSeconds: number }): Promise<BlobMeta> {
    const key = newBlobKey();
    await this.writeAtomically(key, bytes);
    const row = newBlobRow(key, bytes, opts);
    try {
      this.insertRow.run(row);
    } catch (error) {
      await rm(this.pathOf(key), { force: true });
      throw error;
    }
    return toMeta(row);
  }

  async open(key: string): Promise<{ meta: BlobMeta; stream: NodeJS.ReadableStream } | null> {
    if (!isBlobKey(key)) return null;
    const row = this.selectByKey.get(key);
    if (row === undefined || row.expires_at <= Date.now()) return null;
    const handle = await openFile(this.pathOf(key), 'r').catch(nullWhenMissing);
    if (handle === null) return null;
    return { meta: toMeta(row), stream: handle.createReadStream() };
  }

  async delete(key: string): Promise<void> {
    if (!isBlobKey(key)) return;
    this.deleteByKey.run(key);
    await rm(this.pathOf(key), { force: true });
  }

  async sweepExpired(now: Date = new Date()): Promise<number> {
    const keys = this.selectExpiredKeys.all(now.getTime());
    for (const key of keys) await this.delete(key);
    return keys.length;
  }

  private async writeAtomically(key: string, bytes: Buffer): Promise<void> {
    const tempPath = join(this.dir, `.${key}.tmp`);
    try {
      await writeFile(tempPath, bytes, { mode: 0o600, flag: 'wx' });
      await rename(tempPath, this.pathOf(key));
    } catch (error) {
      await rm(tempPath, { force: true });
      throw error;
    }
  }

  private pathOf(key: string): string {
    return join(this.dir, key);
  }
}

function nullWhenMissing(error: unknown): null {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
  throw error;
}

/**
 * Produced files in PostgreSQL (bytea), so a link minted by one replica is served by every other
 * without a shared volume. A produced file is a few MB at most, read once or twice.
 */
export class PostgresBlobStore implements BlobStore {
  constructor(private readonly pool: pg.Pool) {}

  async put(bytes: Buffer, opts: { contentType: string; ttlSeconds: number }): Promise<BlobMeta> {
    const row = newBlobRow(newBlobKey(), bytes, opts);
    await this.pool.query(
      'INSERT INTO blobs (key, content_type, size, bytes, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [row.key, row.content_type, row.size, bytes, row.created_at, row.expires_at],
    );
    return toMeta(row);
  }

  async open(key: string): Promise<{ meta: BlobMeta; stream: NodeJS.ReadableStream } | null> {
    if (!isBlobKey(key)) return null;
    const { rows } = await this.pool.query<BlobRow & { bytes: Buffer }>(
      'SELECT key, content_type, size, bytes, created_at, expires_at FROM blobs WHERE key = $1 AND expires_at > $2',
      [key, Date.now()],
    );
    const row = rows[0];
    return row === undefined ? null : { meta: toMeta(row), stream: Readable.from([row.bytes]) };
  }

  async delete(key: string): Promise<void> {
    if (isBlobKey(key)) await this.pool.query('DELETE FROM blobs WHERE key = $1', [key]);
  }

  async sweepExpired(now: Date = new Date()): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM blobs WHERE expires_at <= $1', [now.getTime()]);
    return rowCount ?? 0;
  }
}
