import type Database from 'better-sqlite3';
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
    if (row === undefined) return null;
    return { key: row.key, value: JSON.parse(row.value) as unknown, createdAt: new Date(row.created_at) };
  }

  async put(key: string, value: unknown): Promise<void> {
    const json = JSON.stringify(value) as string | undefined;
    if (json === undefined) throw new GatewayError('internal', `Artifact ${key} has no JSON representation`);
    this.upsert.run(key, json, Date.now());
  }

  async purgeCreatedBefore(before: number): Promise<number> {
    return this.purge.run(before).changes;
  }
}
