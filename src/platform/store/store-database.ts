import type { Kysely, QueryExecutorProvider } from 'kysely';

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
  close(): Promise<void>;
}
