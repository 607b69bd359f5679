import type { Generated, Insertable, Kysely, Selectable } from 'kysely';
import { columnTypes, type Migration } from './migrations.js';
import type { StoreDatabase } from './store-database.js';

/**
 * One request to the AI operations or the operator routes, as the audit trail keeps it: who,
 * what, when and how it ended. Identifiers only, never what the request carried (no text, no
 * URL, no file name, no token).
 */
export interface AuditRecord {
  /** When the request arrived, epoch milliseconds. */
  at: number;
  /** The name of the token the caller presented; null where no token was required or none matched. */
  caller: string | null;
  /** The operation's name as the request log gives it (its id, or the route pattern outside the AI operations). */
  operation: string;
  method: string;
  requestId: string | null;
  /** The files the request named (`upload_file_id`s), by the caller's own identifiers. */
  uploadFileIds: readonly number[] | null;
  /** HTTP status answered; 499 when the client went away first. */
  status: number;
  errorKind: string | null;
  durationMs: number;
}

/** The audit trail's table. Appended to in batches, read in time order, purged by age. */
export interface AuditStore {
  append(records: readonly AuditRecord[]): Promise<void>;
  /**
   * The records that arrived in [since, until) (epoch ms), oldest first, read `pageSize` at a
   * time so an export of any length holds one page in memory.
   */
  between(since: number, until: number, pageSize?: number): AsyncGenerator<AuditRecord>;
  /** Deletes the records of requests that arrived before `before` (epoch ms); returns how many. */
  purgeBefore(before: number): Promise<number>;
}

type AuditTables = {
  audit_records: {
    id: Generated<number>;
    at: number;
    caller: string | null;
    operation: string;
    method: string;
    request_id: string | null;
    /** A JSON array of integers. */
    upload_file_ids: string | null;
    status: number;
    error_kind: string | null;
    duration_ms: number;
  };
};
type AuditRow = Selectable<AuditTables['audit_records']>;

export const AUDIT_MIGRATIONS: readonly Migration[] = [
  {
    concept: 'audit',
    version: 1,
    name: 'audit_records',
    up: async (db, dialect) => {
      await db.schema
        .createTable('audit_records')
        .addColumn('id', columnTypes(dialect).serialKey, (col) => col.primaryKey())
        .addColumn('at', 'bigint', (col) => col.notNull())
        .addColumn('caller', 'text')
        .addColumn('operation', 'text', (col) => col.notNull())
        .addColumn('method', 'text', (col) => col.notNull())
        .addColumn('request_id', 'text')
        .addColumn('upload_file_ids', 'text')
        .addColumn('status', 'integer', (col) => col.notNull())
        .addColumn('error_kind', 'text')
        .addColumn('duration_ms', 'integer', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('audit_records_at').on('audit_records').columns(['at', 'id']).execute();
    },
  },
];

const DEFAULT_PAGE_SIZE = 1000;

export class SqlAuditStore implements AuditStore {
  private readonly db: Kysely<AuditTables>;

  constructor(database: StoreDatabase) {
    this.db = database.db.withTables<AuditTables>();
  }

  async append(records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.db.insertInto('audit_records').values(records.map(toRow)).execute();
  }

  async *between(since: number, until: number, pageSize = DEFAULT_PAGE_SIZE): AsyncGenerator<AuditRecord> {
    let last: AuditRow | undefined;
    do {
      const after = last;
      const rows = await this.db
        .selectFrom('audit_records')
        .selectAll()
        .where('at', '>=', since)
        .where('at', '<', until)
        .where((eb) =>
          after === undefined ? eb.and([]) : eb.or([eb('at', '>', after.at), eb.and([eb('at', '=', after.at), eb('id', '>', after.id)])]),
        )
        .orderBy('at')
        .orderBy('id')
        .limit(pageSize)
        .execute();
      for (const row of rows) yield fromRow(row);
      last = rows.length === pageSize ? rows[rows.length - 1] : undefined;
    } while (last !== undefined);
  }

  async purgeBefore(before: number): Promise<number> {
    const { numDeletedRows } = await this.db.deleteFrom('audit_records').where('at', '<', before).executeTakeFirst();
    return Number(numDeletedRows);
  }
}

function toRow(record: AuditRecord): Insertable<AuditTables['audit_records']> {
  return {
    at: record.at,
    caller: record.caller,
    operation: record.operation,
    method: record.method,
    request_id: record.requestId,
    upload_file_ids: record.uploadFileIds === null ? null : JSON.stringify(record.uploadFileIds),
    status: record.status,
    error_kind: record.errorKind,
    duration_ms: record.durationMs,
  };
}

function fromRow(row: AuditRow): AuditRecord {
  return {
    at: row.at,
    caller: row.caller,
    operation: row.operation,
    method: row.method,
    requestId: row.request_id,
    uploadFileIds: row.upload_file_ids === null ? null : (JSON.parse(row.upload_file_ids) as number[]),
    status: row.status,
    errorKind: row.error_kind,
    durationMs: row.duration_ms,
  };
}
