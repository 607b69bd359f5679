import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import { keepFileToOwner, makePrivateDir, makePrivateFile } from '../private-files.js';
import type { NoTables, StoreDatabase } from './store-database.js';

export const DATABASE_FILE_NAME = 'gateway.sqlite';
const SQLITE_COMPANION_SUFFIXES = ['-wal', '-shm', '-journal'];

/**
 * Opens (creating it and its folder if needed) the SQLite file `fileName` in `dataDir`, readable
 * by its owner alone whatever the umask: the folder 0700, the file 0600 (SQLite gives its -wal
 * and -shm the file's mode; those an older gateway left looser are tightened too).
 */
export function openSqliteFile(dataDir: string, fileName = DATABASE_FILE_NAME): Database.Database {
  const path = join(dataDir, fileName);
  makePrivateDir(dataDir);
  makePrivateFile(path);
  for (const companion of SQLITE_COMPANION_SUFFIXES) keepFileToOwner(path + companion);
  const connection = new Database(path);
  try {
    configure(connection);
    return connection;
  } catch (error) {
    connection.close();
    throw error;
  }
}

function configure(connection: Database.Database): void {
  connection.pragma('journal_mode = WAL');
  connection.pragma('busy_timeout = 5000');
  connection.pragma('foreign_keys = ON');
  // FULL: work accepted with a 202 must survive a power cut, not only a process crash.
  connection.pragma('synchronous = FULL');
  // Deleted rows (purged results, expired links, jobs) are overwritten, not left in free pages.
  connection.pragma('secure_delete = ON');
}

/**
 * The stores' database over one SQLite connection, used by this gateway alone: no other gateway
 * holds a lease or listens. Closing it closes the connection.
 */
export function sqliteStoreDatabase(connection: Database.Database): StoreDatabase {
  return {
    dialect: 'sqlite',
    db: new Kysely<NoTables>({ dialect: new SqliteDialect({ database: keepingStatements(connection) }) }),
    sharedByReplicas: false,
    notify: async () => undefined,
    listen: async () => undefined,
    listening: () => [],
    close: async () => void connection.close(),
  };
}

/** SQL texts kept prepared at most; the stores' queries are a few dozen, with their values bound. */
const KEPT_STATEMENTS = 256;

/**
 * The connection as the query builder sees it, with each statement prepared once per SQL text:
 * the builder asks for every query to be prepared anew, and SQLite would parse and plan it again.
 */
function keepingStatements(connection: Database.Database): SqliteDatabase {
  const statements = new Map<string, Database.Statement>();
  return {
    close: () => connection.close(),
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        if (statements.size >= KEPT_STATEMENTS) statements.clear();
        statement = connection.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
