/**
 * The two store backends the store contract suites run against: SQLite in a temporary data dir
 * (one gateway) and a real PostgreSQL (replicas), a fresh database for every test.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { sql } from 'kysely';
import { ADVICE_JOB_MIGRATIONS, SqlAdviceJobStore, type AdviceJobStore } from '../../src/operations/report-advice-draft/job-store.js';
import { openStores, type StoreOptions, type Stores } from '../../src/platform/store/index.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../../scripts/lib/postgres.js';
import { describeWithTools } from './tools.js';

export interface OpenedStores {
  stores: Stores;
  /** AI-3's job store, on the same database. */
  adviceJobs: AdviceJobStore;
  /** Runs raw SQL (no parameters) on the backend's database, for assertions on what is stored. */
  rows<T>(sql: string): Promise<T[]>;
  close(): Promise<void>;
}

export interface StoreBackend {
  name: 'SQLite' | 'PostgreSQL';
  /** Why this backend cannot run here, or null. */
  missing: string | null;
  setUp(): Promise<void>;
  open(): Promise<OpenedStores>;
  tearDown(): Promise<void>;
}

const PUBLIC_BASE_URL = 'http://gateway.test';

/** The gateway's stores and AI-3's job store, as the app opens them, in `dataDir` or on `database`. */
export async function openGatewayStores(dataDir: string, database?: StoreOptions['database']): Promise<Stores & { adviceJobs: AdviceJobStore }> {
  const stores = await openStores({ dataDir, publicBaseUrl: PUBLIC_BASE_URL, migrations: ADVICE_JOB_MIGRATIONS, ...(database ? { database } : {}) });
  return { ...stores, adviceJobs: new SqlAdviceJobStore(stores.database) };
}

async function opened(dataDir: string, database?: StoreOptions['database']): Promise<OpenedStores> {
  const stores = await openGatewayStores(dataDir, database);
  return {
    stores,
    adviceJobs: stores.adviceJobs,
    rows: async <T>(query: string) => (await sql.raw<T>(query).execute(stores.database.db)).rows,
    async close() {
      await stores.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function sqliteBackend(): StoreBackend {
  return {
    name: 'SQLite',
    missing: null,
    setUp: async () => undefined,
    open: async () => opened(await mkdtemp(join(tmpdir(), 'gateway-store-'))),
    tearDown: async () => undefined,
  };
}

function postgresBackend(): StoreBackend {
  let server: TestPostgres | undefined;
  return {
    name: 'PostgreSQL',
    missing: postgresMissing(),
    async setUp() {
      server = await startPostgres();
    },
    open: async () => opened(await mkdtemp(join(tmpdir(), 'gateway-store-')), { url: await server!.createDatabase(), poolSize: 4 }),
    async tearDown() {
      await server?.stop();
    },
  };
}

export const storeBackends = (): StoreBackend[] => [sqliteBackend(), postgresBackend()];

/**
 * Declares `suite` once per backend (skipped with its reason where the backend is missing); each
 * test gets freshly opened stores from `opened()`.
 */
export function describeOnEachBackend(suite: string, body: (opened: () => OpenedStores) => void): void {
  for (const backend of storeBackends()) {
    describeWithTools(`${suite} on ${backend.name}`, backend.missing, () => {
      let current: OpenedStores | undefined;
      beforeAll(() => backend.setUp(), 60_000);
      afterAll(() => backend.tearDown());
      beforeEach(async () => {
        current = await backend.open();
      });
      afterEach(() => current?.close());
      body(() => current!);
    });
  }
}
