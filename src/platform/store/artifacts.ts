import type Database from 'better-sqlite3';
import type pg from 'pg';
import { GatewayError } from '../../errors.js';

export interface StoredArtifact {
  key: string;
  value: unknown;
  createdAt: Date;
}

/** Cache of AI results by key. Async so a networked implementation (e.g. Redis) can replace it. */
export interface ArtifactStore {
  get(key: string): Promise<StoredArtifact | null>;
  /** Replaces any existing value: an artifact is deterministic for its key. */
  put(key: string, value: unknown): Promise<void>;
  /** Deletes the artifacts made before `before` (epoch ms); returns how many. */
  purgeCreatedBefore(before: number): Promise<number>;
}

interface ArtifactRow {
  key: string;
  value: string;
  created_at: number;
}

export class SqliteArtifactStore implements ArtifactStore {
  private readonly selectByKey: Database.Statement<[string], ArtifactRow>;
  private readonly upsert: Database.Statement<[string, string, number]>;
  private readonly purge: Database.Statement<[number]>;

  constructor(db: Database.Database) {
    this.selectByKey = db.prepare('SELECT key, value, created_at FROM artifacts WHERE key = ?');
    this.upsert = db.prepare(
      `INSERT INTO artifacts (key, value, created_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, created_at = excluded.created_at`,
    );
    this.purge = db.prepare('DELETE FROM artifacts WHERE created_at < ?');
  }

  async get(key: string): Promise<StoredArtifact | null> {
    const row = this.selectByKey.get(key);
    return row === undefined ? null : toArtifact(row);
  }

  async put(key: string, value: unknown): Promise<void> {
    this.upsert.run(key, artifactJson(key, value), Date.now());
  }

  async purgeCreatedBefore(before: number): Promise<number> {
    return this.purge.run(before).changes;
  }
}

function artifactJson(key: string, value: unknown): string {
  const json = JSON.stringify(value) as string | undefined;
  if (json === undefined) throw new GatewayError('internal', `Artifact ${key} has no JSON representation`);
  return json;
}

function toArtifact(row: ArtifactRow): StoredArtifact {
  return { key: row.key, value: JSON.parse(row.value) as unknown, createdAt: new Date(row.created_at) };
}

/** The cache shared by every replica on one PostgreSQL: a repeat on another replica is a hit. */
export class PostgresArtifactStore implements ArtifactStore {
  constructor(private readonly pool: pg.Pool) {}

  async get(key: string): Promise<StoredArtifact | null> {
    const { rows } = await this.pool.query<ArtifactRow>('SELECT key, value, created_at FROM artifacts WHERE key = $1', [key]);
    return rows[0] === undefined ? null : toArtifact(rows[0]);
  }

  async put(key: string, value: unknown): Promise<void> {
    await this.pool.query(
      `INSERT INTO artifacts (key, value, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, created_at = excluded.created_at`,
      [key, artifactJson(key, value), Date.now()],
    );
  }

  async purgeCreatedBefore(before: number): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM artifacts WHERE created_at < $1', [before]);
    return rowCount ?? 0;
  }
}
