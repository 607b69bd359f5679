import { sql, type Kysely, type QueryExecutorProvider } from 'kysely';
import { isGatewayError } from '../../errors.js';

/** The SQL dialects the gateway's stores speak: SQLite for one gateway, PostgreSQL for replicas. */
export type Dialect = 'sqlite' | 'postgres';

/** A database whose tables are not known here: each store adds its own (`db.withTables<…>()`). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the query builder's "no tables yet"
export type NoTables = {};

/**
 * One database the stores share, behind a query builder that speaks both dialects: a store is
 * written once against `db`, and branches on `dialect` only where SQL itself differs (row locks,
 * column types).
 */
export interface StoreDatabase {
  readonly dialect: Dialect;
  readonly db: Kysely<NoTables>;
  /** True where several gateways share the database, so a lease another gateway holds can end. */
  readonly sharedByReplicas: boolean;
  /** Wakes every gateway listening on `channel` when the surrounding transaction commits; a no-op alone. */
  notify(executor: QueryExecutorProvider, channel: string): Promise<void>;
  /** Calls `listener` on each notification on `channel`; undefined where no other gateway notifies. */
  listen(channel: string, listener: () => void): Promise<(() => Promise<void>) | undefined>;
  /** The connections `listen` holds, each open or being reopened; none where nothing listens. */
  listening(): ListenConnection[];
  close(): Promise<void>;
}

export interface ListenConnection {
  channel: string;
  /** False from the moment it broke until it is open again. */
  connected: boolean;
}

/** How long readiness waits for the database to answer. */
export const STORE_CHECK_TIMEOUT_MS = 2_000;

export type StoreCheck = { state: 'ready' } | { state: 'unavailable'; reason: string };

/** Whether the database answers a trivial query within `timeoutMs`, and why not when it does not. */
export async function checkStore(database: StoreDatabase, timeoutMs = STORE_CHECK_TIMEOUT_MS): Promise<StoreCheck> {
  const answered = sql`SELECT 1`.execute(database.db);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([answered, late]);
    return { state: 'ready' };
  } catch (error) {
    answered.catch(() => undefined); // a late failure is already reported as the timeout
    return { state: 'unavailable', reason: reasonOf(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** The driver's or the socket's own words (a message or a code), never the database URL. */
function reasonOf(error: unknown): string {
  const cause = isGatewayError(error) && error.kind === 'store_unavailable' ? error.cause : error;
  const { code, message } = (cause ?? {}) as { code?: unknown; message?: unknown };
  return (typeof message === 'string' && message) || (typeof code === 'string' && code) || 'unknown error';
}
