import { Kysely, PostgresDialect, sql, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { GatewayError } from '../../errors.js';
import { describeError, type Logger } from '../logger.js';
import type { ListenConnection, NoTables, StoreDatabase } from './store-database.js';

const INT8_OID = 20;
/** A request waits this long for a connection, then fails (503 store_unavailable) rather than hang. */
const CONNECT_TIMEOUT_MS = 10_000;
/** How long a caller refused while the database is unreachable is asked to wait (Retry-After). */
const RETRY_AFTER_SECONDS = 5;
/** A broken LISTEN connection is reopened after this, the wait doubling per failed try up to the maximum. */
const LISTEN_RETRY_FIRST_MS = 200;
const LISTEN_RETRY_MAX_MS = 5_000;

/** SQLSTATEs of a server going away or not accepting yet: admin/crash shutdown, starting up, too many connections. */
const SERVER_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300']);
/** Socket errors on the way to the server. */
const NETWORK_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** pg's own words for a connection it lost or could not open; these errors carry no code. */
const LOST_CONNECTION = /^(Connection terminated|timeout exceeded when trying to connect|timeout expired|Client has encountered a connection error|Client was closed)/;

/** BIGINT columns hold epoch milliseconds and counts, all well inside a double: read them as numbers. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * The database several gateway replicas share (DATABASE_URL). Times are epoch milliseconds in
 * BIGINT, as in SQLite, so both dialects run the same arithmetic. While the server cannot be
 * reached (restarting, failing over), queries fail with `store_unavailable` and the pool opens
 * fresh connections once it answers again.
 */
export function postgresStoreDatabase(url: string, poolSize: number, log: Logger): StoreDatabase {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true });
  // A connection the server ends emits 'error': the pool drops an idle one; one checked out
  // between two queries fails its next query instead. Unheard, the event would end the process.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<NoTables>({ dialect: new PostgresDialect({ pool: reportingUnreachable(pool) }) });
  const subscriptions = new Set<Subscription>();
  return {
    dialect: 'postgres',
    db,
    sharedByReplicas: true,
    notify: async (executor, channel) => void (await sql`NOTIFY ${sql.id(channel)}`.execute(executor)),
    listen: async (channel, listener) => {
      const subscription = new Subscription(pool, channel, listener, log);
      await subscription.open();
      subscriptions.add(subscription);
      return async () => {
        subscriptions.delete(subscription);
        await subscription.close();
      };
    },
    listening: () => [...subscriptions].map(({ channel, connected }) => ({ channel, connected })),
    close: () => db.destroy(),
  };
}

/** Whether `error` says the server could not be reached or dropped the connection, rather than refused a query. */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code.startsWith('08') || SERVER_UNAVAILABLE.has(code) || NETWORK_FAILURES.has(code);
  return LOST_CONNECTION.test(error.message);
}

/** A connection failure as the caller sees it: retryable, in the gateway's words; the driver's own stays the cause. */
function unreachable(error: unknown): never {
  if (!isConnectionFailure(error)) throw error;
  throw new GatewayError('store_unavailable', "the gateway's database cannot be reached; nothing was stored, retry shortly", {
    cause: error,
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });
}

/** The pool as the query builder uses it, with its connection failures reported as `store_unavailable`. */
function reportingUnreachable(pool: pg.Pool): PostgresPool {
  return {
    connect: async () => {
      const client = await pool.connect().catch(unreachable);
      // No cursor is configured, so the query builder only ever sends a text with its parameters.
      const query = (text: string, parameters: ReadonlyArray<unknown>) => client.query(text, [...parameters]).catch(unreachable);
      return { query: query as unknown as PostgresPoolClient['query'], release: (destroy?: boolean) => client.release(destroy) };
    },
    end: () => pool.end(),
  };
}

/**
 * One connection LISTENing on `channel`. When it breaks (the server restarted, the network
 * dropped it) the operator is told, and it is reopened with backoff; meanwhile the caller's
 * polling still finds the work. Once it is open again, `listener` is called for whatever was
 * notified while it was down.
 */
class Subscription implements ListenConnection {
  connected = false;
  private client: pg.PoolClient | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private failedTries = 0;
  private brokenAt = 0;

  constructor(
    private readonly pool: pg.Pool,
    readonly channel: string,
    private readonly listener: () => void,
    private readonly log: Logger,
  ) {}

  async open(): Promise<void> {
    const client = await this.pool.connect();
    const lost = (error?: Error) => this.lost(client, error);
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', this.listener);
    try {
      await client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`);
    } catch (error) {
      client.release(true);
      throw error;
    }
    this.client = client;
    this.connected = true;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    this.connected = false;
    if (client === undefined) return;
    client.off('notification', this.listener);
    await client.query(`UNLISTEN ${client.escapeIdentifier(this.channel)}`).catch(() => undefined);
    client.release();
  }

  private lost(client: pg.PoolClient, error: Error | undefined): void {
    if (client !== this.client) return;
    this.client = undefined;
    this.connected = false;
    this.brokenAt = Date.now();
    client.release(true);
    this.log.warn(
      { channel: this.channel, ...(error ? { err: describeError(error) } : {}) },
      'store notifications lost: the LISTEN connection broke; reopening it, and polling for work meanwhile',
    );
    this.reopenLater();
  }

  private reopenLater(): void {
    if (this.closed) return;
    const wait = Math.min(LISTEN_RETRY_MAX_MS, LISTEN_RETRY_FIRST_MS * 2 ** this.failedTries);
    this.retry = setTimeout(() => void this.reopen(), wait).unref();
  }

  private async reopen(): Promise<void> {
    try {
      await this.open();
    } catch {
      this.failedTries++;
      this.reopenLater();
      return;
    }
    if (this.closed) return this.close(); // closed while it was reopening
    this.log.info(
      { channel: this.channel, down_ms: Date.now() - this.brokenAt, tries: this.failedTries + 1 },
      'store notifications restored: the LISTEN connection is open again',
    );
    this.failedTries = 0;
    this.listener();
  }
}

/** Why PostgreSQL could not be opened, in the server's or the socket's own words: never the URL. */
export function postgresOpenFailure(error: unknown): GatewayError {
  const cause = error instanceof GatewayError && error.kind === 'store_unavailable' ? error.cause : error;
  if (cause instanceof GatewayError) return cause;
  const { code, message } = cause as { code?: string; message?: string };
  return new GatewayError('internal', `Could not open the PostgreSQL store (DATABASE_URL): ${message || code || 'unknown error'}`, {
    cause,
  });
}
