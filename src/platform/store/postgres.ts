import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { GatewayError } from '../../errors.js';
import type { NoTables, StoreDatabase } from './store-database.js';

const INT8_OID = 20;
/** A request waits this long for a connection, then fails (500, retryable) rather than hang. */
const CONNECT_TIMEOUT_MS = 10_000;

/** BIGINT columns hold epoch milliseconds and counts, all well inside a double: read them as numbers. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * The database several gateway replicas share (DATABASE_URL). Times are epoch milliseconds in
 * BIGINT, as in SQLite, so both dialects run the same arithmetic.
 */
export function postgresStoreDatabase(url: string, poolSize: number): StoreDatabase {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true });
  // An idle client that loses its connection emits this; the pool drops it and opens another.
  pool.on('error', () => undefined);
  const db = new Kysely<NoTables>({ dialect: new PostgresDialect({ pool }) });
  return {
    dialect: 'postgres',
    db,
    sharedByReplicas: true,
    notify: async (executor, channel) => void (await sql`NOTIFY ${sql.id(channel)}`.execute(executor)),
    listen: (channel, listener) => listen(pool, channel, listener),
    close: () => db.destroy(),
  };
}

/** Holds one connection LISTENing; if it breaks, the caller's polling still finds the work. */
async function listen(pool: pg.Pool, channel: string, listener: () => void): Promise<() => Promise<void>> {
  const client = await pool.connect();
  const quoted = client.escapeIdentifier(channel);
  client.on('error', () => undefined);
  client.on('notification', listener);
  await client.query(`LISTEN ${quoted}`);
  return async () => {
    client.off('notification', listener);
    await client.query(`UNLISTEN ${quoted}`).catch(() => undefined);
    client.release();
  };
}

/** Why PostgreSQL could not be opened, in the server's or the socket's own words: never the URL. */
export function postgresOpenFailure(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const { code, message } = error as { code?: string; message?: string };
  return new GatewayError('internal', `Could not open the PostgreSQL store (DATABASE_URL): ${message || code || 'unknown error'}`, {
    cause: error,
  });
}
