import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import type { Migration } from '../../../src/platform/store/database.js';
import { MIGRATIONS, openDatabase } from '../../../src/platform/store/database.js';

let dataDir: string;
const opened: Database.Database[] = [];

function open(migrations: readonly Migration[] = MIGRATIONS): Database.Database {
  const db = openDatabase(dataDir, migrations);
  opened.push(db);
  return db;
}

function appliedVersions(db: Database.Database): number[] {
  return db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all() as number[];
}

function tableNames(db: Database.Database): string[] {
  return db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
}

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-db-'));
});

afterEach(async () => {
  for (const db of opened.splice(0)) if (db.open) db.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('openDatabase', () => {
  it('applies every migration to a fresh database, with the configured pragmas', () => {
    const db = open();

    expect(appliedVersions(db)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(tableNames(db)).toEqual(
      expect.arrayContaining(['artifacts', 'blobs', 'advice_jobs', 'advice_job_events', 'schema_migrations']),
    );
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL: accepted jobs survive a power cut
  });

  it('creates a missing data directory', () => {
    dataDir = join(dataDir, 'nested', 'data');
    const db = open();

    expect(db.name).toBe(join(dataDir, 'gateway.sqlite'));
  });

  it('applies nothing twice when reopened', () => {
    open().close();
    const db = open();

    expect(appliedVersions(db)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('applies only the migrations added since the last open', () => {
    open(MIGRATIONS.slice(0, 1)).close();
    const db = open();

    expect(appliedVersions(db)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('refuses a database whose schema is newer than the code', () => {
    const db = open();
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 'x')").run();
    db.close();

    expect(() => open()).toThrowError(GatewayError);
    expect(() => open()).toThrowError(/schema version 99 is newer/);
  });

  it('rolls back a failing migration and leaves it unapplied', () => {
    const failing: Migration = {
      version: MIGRATIONS.length + 1,
      name: 'broken',
      up: 'CREATE TABLE half_done (id INTEGER); INSERT INTO no_such_table VALUES (1);',
    };

    expect(() => open([...MIGRATIONS, failing])).toThrowError(new RegExp(`migration ${failing.version} \\(broken\\) failed`));

    const db = open();
    expect(appliedVersions(db)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(tableNames(db)).not.toContain('half_done');
  });
});
