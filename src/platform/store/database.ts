import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { GatewayError } from '../../errors.js';

export interface Migration {
  version: number;
  name: string;
  /** SQL, run inside one transaction together with its schema_migrations record. */
  up: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'artifacts',
    up: `CREATE TABLE artifacts (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );`,
  },
  {
    version: 2,
    name: 'blobs',
    up: `CREATE TABLE blobs (
      key TEXT PRIMARY KEY,
      content_type TEXT NOT NULL,
      size INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    );
    CREATE INDEX blobs_expires_at ON blobs (expires_at);`,
  },
  {
    version: 3,
    name: 'advice_jobs',
    up: `CREATE TABLE advice_jobs (
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
      next_run_at INTEGER NOT NULL,
      first_delivery_at INTEGER,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE INDEX advice_jobs_due ON advice_jobs (state, next_run_at);
    CREATE TABLE advice_job_events (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      request_id TEXT NOT NULL REFERENCES advice_jobs (request_id) ON DELETE CASCADE,
      at INTEGER NOT NULL,
      event TEXT NOT NULL,
      detail TEXT
    );
    CREATE INDEX advice_job_events_job ON advice_job_events (request_id, id);`,
  },
  {
    version: 4,
    name: 'artifacts_created_at',
    up: `CREATE INDEX artifacts_created_at ON artifacts (created_at);`,
  },
];

export const DATABASE_FILE_NAME = 'gateway.sqlite';

/** Opens (creating if needed) `fileName` in `dataDir` and applies the pending migrations. */
export function openDatabase(
  dataDir: string,
  migrations: readonly Migration[] = MIGRATIONS,
  fileName = DATABASE_FILE_NAME,
): Database.Database {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(dataDir, fileName));
  try {
    configure(db);
    migrate(db, migrations);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function configure(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  // FULL: an accepted AI-3 job (202) must survive a power cut, not only a process crash.
  db.pragma('synchronous = FULL');
}

function migrate(db: Database.Database, migrations: readonly Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const applied = appliedVersions(db);
  refuseNewerSchema(applied, migrations);
  const pending = migrations.filter((m) => !applied.has(m.version)).sort((a, b) => a.version - b.version);
  for (const migration of pending) applyMigration(db, migration);
}

function appliedVersions(db: Database.Database): Set<number> {
  const rows = db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[];
  return new Set(rows);
}

export function refuseNewerSchema(applied: Set<number>, migrations: readonly Migration[]): void {
  const newestKnown = Math.max(0, ...migrations.map((m) => m.version));
  const newestApplied = Math.max(0, ...applied);
  if (newestApplied > newestKnown) {
    throw new GatewayError(
      'internal',
      `Database schema version ${newestApplied} is newer than this gateway supports (${newestKnown}); ` +
        'refusing to open it. Upgrade the gateway or restore a matching database.',
    );
  }
}

function applyMigration(db: Database.Database, migration: Migration): void {
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const apply = db.transaction(() => {
    db.exec(migration.up);
    record.run(migration.version, migration.name, new Date().toISOString());
  });
  try {
    apply();
  } catch (error) {
    throw new GatewayError('internal', `Database migration ${migration.version} (${migration.name}) failed`, {
      cause: error,
    });
  }
}
