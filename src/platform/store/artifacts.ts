import type { Kysely } from 'kysely';
import { GatewayError } from '../../errors.js';
import type { Migration } from './migrations.js';
import type { StoreDatabase } from './store-database.js';

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

type ArtifactTables = {
  artifacts: { key: string; value: string; created_at: number };
};

export const ARTIFACT_MIGRATIONS: readonly Migration[] = [
  {
    concept: 'artifacts',
    version: 1,
    name: 'artifacts',
    appliedBy: { sqlite: 1, postgres: 1 },
    up: (db) =>
      db.schema
        .createTable('artifacts')
        .addColumn('key', 'text', (col) => col.primaryKey())
        .addColumn('value', 'text', (col) => col.notNull())
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .execute(),
  },
  {
    concept: 'artifacts',
    version: 2,
    name: 'artifacts_created_at',
    appliedBy: { sqlite: 4, postgres: 2 },
    up: (db) => db.schema.createIndex('artifacts_created_at').on('artifacts').column('created_at').execute(),
  },
];

/** The cache; on PostgreSQL shared by every replica, so a repeat on another replica is a hit. */
export class SqlArtifactStore implements ArtifactStore {
  private readonly db: Kysely<ArtifactTables>;

  constructor(database: StoreDatabase) {
    this.db = database.db.withTables<ArtifactTables>();
  }

  async get(key: string): Promise<StoredArtifact | null> {
    const row = await this.db.selectFrom('artifacts').selectAll().where('key', '=', key).executeTakeFirst();
    return row === undefined ? null : { key: row.key, value: JSON.parse(row.value) as unknown, createdAt: new Date(row.created_at) };
  }

  async put(key: string, value: unknown): Promise<void> {
    const row = { key, value: artifactJson(key, value), created_at: Date.now() };
    await this.db
      .insertInto('artifacts')
      .values(row)
      .onConflict((conflict) => conflict.column('key').doUpdateSet({ value: row.value, created_at: row.created_at }))
      .execute();
  }

  async purgeCreatedBefore(before: number): Promise<number> {
    const { numDeletedRows } = await this.db.deleteFrom('artifacts').where('created_at', '<', before).executeTakeFirst();
    return Number(numDeletedRows);
  }
}

function artifactJson(key: string, value: unknown): string {
  const json = JSON.stringify(value) as string | undefined;
  if (json === undefined) throw new GatewayError('internal', `Artifact ${key} has no JSON representation`);
  return json;
}
