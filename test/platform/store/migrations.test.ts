import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import { ADVICE_JOB_MIGRATIONS } from '../../../src/operations/report-advice-draft/job-store.js';
import {
  ARTIFACT_MIGRATIONS,
  BLOB_MIGRATIONS,
  migrate,
  openSqliteFile,
  sqliteStoreDatabase,
  type Migration,
} from '../../../src/platform/store/index.js';

const GATEWAY_MIGRATIONS = [...ARTIFACT_MIGRATIONS, ...BLOB_MIGRATIONS, ...ADVICE_JOB_MIGRATIONS];

let dataDir: string;
const opened: Database.Database[] = [];

async function open(migrations: readonly Migration[] = GATEWAY_MIGRATIONS): Promise<Database.Database> {
  const connection = openSqliteFile(dataDir);
  opened.push(connection);
  await migrate(sqliteStoreDatabase(connection), migrations);
  return connection;
}

const applied = (db: Database.Database) =>
  db.prepare("SELECT concept || ' ' || version FROM store_migrations ORDER BY concept, version").pluck().all() as string[];
const known = (migrations: readonly Migration[]) => migrations.map((m) => `${m.concept} ${m.version}`).sort();
const tableNames = (db: Database.Database) =>
  db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-db-'));
});

afterEach(async () => {
  for (const db of opened.splice(0)) if (db.open) db.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the SQLite store database', () => {
  it('applies every migration to a fresh database, with the configured pragmas', async () => {
    const db = await open();

    expect(applied(db)).toEqual(known(GATEWAY_MIGRATIONS));
    expect(tableNames(db)).toEqual(expect.arrayContaining(['artifacts', 'blobs', 'advice_jobs', 'advice_job_events', 'store_migrations']));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL: accepted jobs survive a power cut
    expect(db.pragma('secure_delete', { simple: true })).toBe(1); // deleted rows are overwritten
  });

  it('keeps the folder and the database to their owner, whatever the umask or whoever created them', async () => {
    dataDir = join(dataDir, 'data');
    await mkdir(dataDir, { mode: 0o755 }); // as the image creates /data
    await chmod(dataDir, 0o755);
    const looseDatabase = join(dataDir, 'gateway.sqlite-wal');
    await writeFile(looseDatabase, '', { mode: 0o644 }); // as an older gateway left it
    await chmod(looseDatabase, 0o644);
    const previousUmask = process.umask(0o022);
    try {
      const db = await open();
      db.prepare('INSERT INTO artifacts (key, value, created_at) VALUES (?, ?, ?)').run('k', 'v', 1);

      expect(await modeOf(dataDir)).toBe(0o700);
      for (const file of ['gateway.sqlite', 'gateway.sqlite-wal', 'gateway.sqlite-shm']) expect(await modeOf(join(dataDir, file)), file).toBe(0o600);
    } finally {
      process.umask(previousUmask);
    }
  });

  it('creates a missing data directory', async () => {
    dataDir = join(dataDir, 'nested', 'data');
    const db = await open();

    expect(db.name).toBe(join(dataDir, 'gateway.sqlite'));
  });

  it('applies nothing twice when reopened, and only what was added since the last open', async () => {
    (await open(GATEWAY_MIGRATIONS.slice(0, 1))).close();
    const db = await open();
    (await open()).close();

    expect(applied(db)).toEqual(known(GATEWAY_MIGRATIONS));
  });

  it('refuses a database whose concept is newer than the code, naming it', async () => {
    const db = await open();
    db.prepare("INSERT INTO store_migrations VALUES ('advice_jobs', 99, 'future', 'x')").run();
    db.close();

    await expect(open()).rejects.toThrowError(GatewayError);
    await expect(open()).rejects.toThrowError(/schema version 99 of advice_jobs is newer/);
  });

  it('rolls back a failing migration and leaves it unapplied', async () => {
    const failing: Migration = {
      concept: 'artifacts',
      version: 3,
      name: 'broken',
      up: async (db) => {
        await sql`CREATE TABLE half_done (id INTEGER)`.execute(db);
        await sql`INSERT INTO no_such_table VALUES (1)`.execute(db);
      },
    };

    await expect(open([...GATEWAY_MIGRATIONS, failing])).rejects.toThrowError(/migration artifacts 3 \(broken\) failed/);

    const db = await open();
    expect(applied(db)).toEqual(known(GATEWAY_MIGRATIONS));
    expect(tableNames(db)).not.toContain('half_done');
  });

  it('takes over a database of the single-history release with its data, and closes that history to older gateways', async () => {
    const old = openSqliteFile(dataDir);
    old.exec(OLD_RELEASE_SCHEMA);
    old.prepare("INSERT INTO advice_jobs (request_id, body_sha256, state, webhook_id, next_run_at, created_at, updated_at) VALUES ('r1', 'a', 'dead', 'msg_r1', 1, 1, 1)").run();
    old.close();

    const db = await open();

    expect(applied(db)).toEqual(known(GATEWAY_MIGRATIONS));
    expect(db.prepare('SELECT request_id FROM advice_jobs').pluck().all()).toEqual(['r1']);
    // A gateway from before finds a version it does not know and refuses the database.
    expect(db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBe(1000);
  });
});

/** What the release before per-concept migrations left in gateway.sqlite (its migrations 1–4). */
const OLD_RELEASE_SCHEMA = `
  CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);
  CREATE TABLE artifacts (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at INTEGER NOT NULL);
  CREATE TABLE blobs (key TEXT PRIMARY KEY, content_type TEXT NOT NULL, size INTEGER NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
  CREATE INDEX blobs_expires_at ON blobs (expires_at);
  CREATE TABLE advice_jobs (
    request_id TEXT PRIMARY KEY, body_sha256 TEXT NOT NULL, request_json TEXT, state TEXT NOT NULL, webhook_id TEXT NOT NULL,
    callback_json TEXT, outcome TEXT, error_kind TEXT, error_message TEXT, draft_attempts INTEGER NOT NULL DEFAULT 0,
    delivery_attempts INTEGER NOT NULL DEFAULT 0, next_run_at INTEGER NOT NULL, first_delivery_at INTEGER,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
  CREATE INDEX advice_jobs_due ON advice_jobs (state, next_run_at);
  CREATE TABLE advice_job_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT, request_id TEXT NOT NULL REFERENCES advice_jobs (request_id) ON DELETE CASCADE,
    at INTEGER NOT NULL, event TEXT NOT NULL, detail TEXT);
  CREATE INDEX advice_job_events_job ON advice_job_events (request_id, id);
  CREATE INDEX artifacts_created_at ON artifacts (created_at);
  INSERT INTO schema_migrations VALUES (1, 'artifacts', 'x'), (2, 'blobs', 'x'), (3, 'advice_jobs', 'x'), (4, 'artifacts_created_at', 'x');
`;
