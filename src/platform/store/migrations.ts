import { sql, type Kysely } from 'kysely';
import { GatewayError } from '../../errors.js';
import type { Dialect, StoreDatabase } from './store-database.js';

/**
 * One step of one concept's schema (its tables), written once for both dialects with the query
 * builder's schema builder. A concept's versions count from 1 in the order they were added.
 */
export interface Migration {
  concept: string;
  version: number;
  name: string;
  /** Runs inside one transaction together with its store_migrations record. */
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
  /**
   * The version of the single, whole-database `schema_migrations` history (kept before each
   * concept had its own) whose presence means this step was already applied, per dialect.
   */
  appliedBy?: Partial<Record<Dialect, number>>;
}

/**
 * The old whole-database history gets this record once the per-concept one takes over, so a
 * gateway from before refuses the database (its check rejects a version newer than it knows)
 * instead of migrating tables it no longer owns.
 */
const OLD_HISTORY_CLOSED = 1000;
/** Any constant every replica agrees on: the key of the PostgreSQL advisory lock held while migrating. */
const MIGRATION_LOCK_KEY = 0x6d6474_0001;

type MigrationTables = {
  store_migrations: { concept: string; version: number; name: string; applied_at: string };
  schema_migrations: { version: number; name: string; applied_at: string };
};

/** Column types the dialects spell differently. */
export const columnTypes = (dialect: Dialect) =>
  ({
    /** An integer key the database assigns in insertion order. */
    serialKey: dialect === 'postgres' ? 'bigserial' : 'integer',
    bytes: dialect === 'postgres' ? 'bytea' : 'blob',
  }) as const;

/**
 * Applies the pending migrations of every concept. Replicas starting together queue on an
 * advisory lock (released with the session if it dies): the first migrates, the others then
 * find nothing pending.
 */
export async function migrate(database: StoreDatabase, migrations: readonly Migration[]): Promise<void> {
  await database.db.connection().execute(async (connection) => {
    const db = connection.withTables<MigrationTables>();
    if (database.dialect === 'postgres') await sql`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(db);
    try {
      await db.transaction().execute((trx) => adoptOldHistory(trx, database.dialect, migrations));
      const applied = await appliedVersions(db);
      refuseNewerSchema(applied, migrations);
      for (const migration of pending(applied, migrations)) await apply(db, database.dialect, migration);
    } finally {
      if (database.dialect === 'postgres') await sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(db).catch(() => undefined);
    }
  });
}

/**
 * Creates the per-concept history; a database that still has only the old whole-database one
 * gets the steps its old versions stand for recorded, and the old history closed.
 */
async function adoptOldHistory(db: Kysely<MigrationTables>, dialect: Dialect, migrations: readonly Migration[]): Promise<void> {
  await db.schema
    .createTable('store_migrations')
    .ifNotExists()
    .addColumn('concept', 'text', (col) => col.notNull())
    .addColumn('version', 'integer', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('applied_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('store_migrations_key', ['concept', 'version'])
    .execute();
  await db.schema
    .createTable('schema_migrations')
    .ifNotExists()
    .addColumn('version', 'integer', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('applied_at', 'text', (col) => col.notNull())
    .execute();
  const old = new Set((await db.selectFrom('schema_migrations').select('version').execute()).map((row) => row.version));
  if (old.has(OLD_HISTORY_CLOSED)) return;
  const now = new Date().toISOString();
  for (const migration of migrations) {
    const oldVersion = migration.appliedBy?.[dialect];
    if (oldVersion === undefined || !old.has(oldVersion)) continue;
    await db.insertInto('store_migrations').values({ ...key(migration), applied_at: now }).execute();
  }
  await db
    .insertInto('schema_migrations')
    .values({ version: OLD_HISTORY_CLOSED, name: 'kept per concept in store_migrations', applied_at: now })
    .execute();
}

async function appliedVersions(db: Kysely<MigrationTables>): Promise<Map<string, Set<number>>> {
  const applied = new Map<string, Set<number>>();
  for (const row of await db.selectFrom('store_migrations').select(['concept', 'version']).execute()) {
    applied.set(row.concept, (applied.get(row.concept) ?? new Set()).add(row.version));
  }
  return applied;
}

/** A concept migrated further than this gateway knows was written by a newer one: refuse it. */
function refuseNewerSchema(applied: Map<string, Set<number>>, migrations: readonly Migration[]): void {
  for (const [concept, versions] of applied) {
    const known = migrations.filter((m) => m.concept === concept);
    if (known.length === 0) continue;
    const newestKnown = Math.max(...known.map((m) => m.version));
    const newestApplied = Math.max(...versions);
    if (newestApplied > newestKnown) {
      throw new GatewayError(
        'internal',
        `Database schema version ${newestApplied} of ${concept} is newer than this gateway supports (${newestKnown}); ` +
          'refusing to open it. Upgrade the gateway or restore a matching database.',
      );
    }
  }
}

/** In the order given: a concept's steps in version order, concepts in the order they depend on each other. */
function pending(applied: Map<string, Set<number>>, migrations: readonly Migration[]): Migration[] {
  return migrations.filter((m) => !applied.get(m.concept)?.has(m.version));
}

async function apply(db: Kysely<MigrationTables>, dialect: Dialect, migration: Migration): Promise<void> {
  try {
    await db.transaction().execute(async (trx) => {
      await migration.up(trx as unknown as Kysely<unknown>, dialect);
      await trx.insertInto('store_migrations').values({ ...key(migration), applied_at: new Date().toISOString() }).execute();
    });
  } catch (error) {
    throw new GatewayError('internal', `Database migration ${migration.concept} ${migration.version} (${migration.name}) failed`, {
      cause: error,
    });
  }
}

const key = (migration: Migration) => ({ concept: migration.concept, version: migration.version, name: migration.name });
