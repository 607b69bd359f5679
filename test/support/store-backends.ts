/**
 * The two store backends the store contract suites run against: SQLite in a temporary data dir
 * (one gateway) and a real PostgreSQL (replicas), a fresh database for every test.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { openStores, type Stores } from '../../src/platform/store/index.js';
import { openDatabase } from '../../src/platform/store/database.js';
import { postgresMissing, startPostgres, withClient, type TestPostgres } from '../../scripts/lib/postgres.js';
import { describeWithTools } from './tools.js';

export interface OpenedStores {
  stores: Stores;
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

function sqliteBackend(): StoreBackend {
  return {
    name: 'SQLite',
    missing: null,
    setUp: async () => undefined,
    async open() {
      const dataDir = await mkdtemp(join(tmpdir(), 'gateway-store-'));
      const stores = await openStores({ dataDir, publicBaseUrl: PUBLIC_BASE_URL });
      const db = openDatabase(dataDir);
      return {
        stores,
        rows: async <T>(sql: string) => db.prepare(sql).all() as T[],
        async close() {
          db.close();
          await stores.close();
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    },
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
    async open() {
      const url = await server!.createDatabase();
      const dataDir = await mkdtemp(join(tmpdir(), 'gateway-store-'));
      const stores = await openStores({ dataDir, publicBaseUrl: PUBLIC_BASE_URL, database: { url, poolSize: 4 } });
      return {
        stores,
        rows: <T>(sql: string) => withClient(url, async (client) => (await client.query(sql)).rows as T[]),
        async close() {
          await stores.close();
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    },
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
