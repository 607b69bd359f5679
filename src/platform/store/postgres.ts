import pg from 'pg';
import { GatewayError } from '../../errors.js';
import { refuseNewerSchema, type Migration } from './database.js';

/**
 * The PostgreSQL schema several gateway replicas share (DATABASE_URL). Times are epoch
 * milliseconds in BIGINT, as in SQLite, so both stores run the same arithmetic; produced files
 * are stored as bytea, so a `/files/` link minted by one replica is served by any other.
 */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'shared store',
    up: `CREATE TABLE artifacts (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      created_at BIGINT NOT NULL
    );
    CREATE TABLE blobs (
      key TEXT PRIMARY KEY,
      content_type TEXT NOT NULL,
      size INTEGER NOT NULL,
      bytes BYTEA NOT NULL,
      created_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL
    );
    CREATE INDEX blobs_expires_at ON blobs (expires_at);
    CREATE TABLE advice_jobs (
      request_id TEXT PRIMARY KEY,
      body_sha256 TEXT NOT NULL,
      request_json TEXT,
      state TEXT NOT NULL,
      webhook_id TEXT NOT NULL,
      callback_json TEXT,
      outcome TEXT,
      error_kind TEXT,
      error_message TEXT,
      draft_attempts INTEGER NOT NULL DEFAULT 0,
      delivery_attempts INTEGER NOT NULL DEFAULT 0,
      next_run_at BIGINT NOT NULL,
      first_delivery_at BIGINT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    );
    CREATE INDEX advice_jobs_due ON advice_jobs (state, next_run_at);
    CREATE TABLE advice_job_events (
      id BIGSERIAL PRIMARY KEY,
      request_id TEXT NOT NULL REFERENCES advice_jobs (request_id) ON DELETE CASCADE,
      at BIGINT NOT NULL,
      event TEXT NOT NULL,
      detail TEXT
    );
    CREATE INDEX advice_job_events_job ON advice_job_events (request_id, id);
    CREATE TABLE secrets (
      name TEXT PRIMARY KEY,
      value BYTEA NOT NULL
    );`,
  },
  {
    version: 2,
    name: 'artifacts_created_at',
    up: `CREATE INDEX artifacts_created_at ON artifacts (created_at);`,
  },
];

/** Any constant both replicas agree on: the key of the advisory lock held while migrating. */
const MIGRATION_LOCK_KEY = 0x6d6474_0001;
const INT8_OID = 20;
/** A request waits this long for a connection, then fails (500, retryable) rather than hang. */
const CONNECT_TIMEOUT_MS = 10_000;

/** BIGINT columns hold epoch milliseconds and counts, all well inside a double: read them as numbers. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Connects to DATABASE_URL and applies the pending migrations, once across replicas starting together. */
export async function openPostgres(
  url: string,
  poolSize: number,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true });
  // An idle client that loses its connection emits this; the pool drops it and opens another.
  pool.on('error', () => undefined);
  try {
    await migrate(pool, migrations);
    return pool;
  } catch (error) {
    await pool.end();
    if (error instanceof GatewayError) throw error;
    throw new GatewayError('internal', `Could not open the PostgreSQL store (DATABASE_URL): ${connectionFailure(error)}`, {
      cause: error,
    });
  }
}

/** The server's or the socket's own words ("database … does not exist", ECONNREFUSED): never the URL. */
function connectionFailure(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  return message || code || 'unknown error';
}

/**
 * Replicas that start together queue on an advisory lock; the first applies the migrations,
 * the others then find nothing pending. The lock is released with the session if it dies.
 */
async function migrate(pool: pg.Pool, migrations: readonly Migration[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL
    )`);
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.version));
    refuseNewerSchema(applied, migrations);
    const pending = migrations.filter((m) => !applied.has(m.version)).sort((a, b) => a.version - b.version);
    for (const migration of pending) await applyMigration(client, migration);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    client.release();
  }
}

async function applyMigration(client: pg.PoolClient, migration: Migration): Promise<void> {
  try {
    await client.query('BEGIN');
    await client.query(migration.up);
    await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
      migration.version,
      migration.name,
      new Date().toISOString(),
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw new GatewayError('internal', `Database migration ${migration.version} (${migration.name}) failed`, { cause: error });
  }
}

/** Runs `work` in one transaction on one connection; rolled back if it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** The file-link key shared by every replica: the first to start creates it. */
export async function loadOrCreateSharedSecret(pool: pg.Pool, name: string, create: () => Buffer): Promise<Buffer> {
  await pool.query('INSERT INTO secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, create()]);
  const { rows } = await pool.query<{ value: Buffer }>('SELECT value FROM secrets WHERE name = $1', [name]);
  return rows[0]!.value;
}
