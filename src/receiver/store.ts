import type Database from 'better-sqlite3';
import { sql } from 'kysely';
import type { AdviceCallback } from '../contract/advice.js';
import { migrate, openSqliteFile, sqliteStoreDatabase, type Migration } from '../platform/store/index.js';

const RECEIVER_MIGRATIONS: readonly Migration[] = [
  {
    concept: 'receiver',
    version: 1,
    name: 'consultation_report',
    appliedBy: { sqlite: 1 },
    up: (db) => sql`CREATE TABLE consultation_report (
      request_id TEXT PRIMARY KEY,
      treatment_advice TEXT,
      ai_advice_ref TEXT,
      ai_status TEXT,
      ai_error_kind TEXT,
      updated_at TEXT
    )`.execute(db).then(() => undefined),
  },
  {
    concept: 'receiver',
    version: 2,
    name: 'received_callbacks',
    appliedBy: { sqlite: 2 },
    up: (db) => sql`CREATE TABLE received_callbacks (
      webhook_id TEXT PRIMARY KEY,
      request_id TEXT,
      received_at TEXT
    )`.execute(db).then(() => undefined),
  },
];

/** The receiver's own file: its tables must never meet the gateway's, even in one folder. */
export async function openReceiverDatabase(dataDir: string): Promise<Database.Database> {
  const connection = openSqliteFile(dataDir, 'receiver.sqlite');
  try {
    await migrate(sqliteStoreDatabase(connection), RECEIVER_MIGRATIONS);
    return connection;
  } catch (error) {
    connection.close();
    throw error;
  }
}

export interface ReportRow {
  request_id: string;
  treatment_advice: string | null;
  ai_advice_ref: string | null;
  ai_status: string | null;
  ai_error_kind: string | null;
  updated_at: string | null;
}

export type CallbackOutcome = 'stored' | 'duplicate';

export interface ReceiverStore {
  /**
   * Records the webhook id and applies the callback in one transaction. A webhook id seen
   * before changes nothing. Without an id (an unsigned callback) there is nothing to deduplicate on.
   */
  applyCallback(webhookId: string | undefined, callback: AdviceCallback, now: Date): CallbackOutcome;
  findReport(requestId: string): ReportRow | undefined;
}

export function createReceiverStore(db: Database.Database): ReceiverStore {
  const recordWebhookId = db.prepare(
    'INSERT OR IGNORE INTO received_callbacks (webhook_id, request_id, received_at) VALUES (?, ?, ?)',
  );
  // Only the AI columns: treatment_advice is the supervising doctor's formal advice.
  const storeSucceeded = db.prepare(
    `INSERT INTO consultation_report (request_id, ai_advice_ref, ai_status, updated_at) VALUES (?, ?, 'succeeded', ?)
     ON CONFLICT (request_id) DO UPDATE SET
       ai_advice_ref = excluded.ai_advice_ref, ai_status = 'succeeded', updated_at = excluded.updated_at`,
  );
  const storeFailed = db.prepare(
    `INSERT INTO consultation_report (request_id, ai_status, ai_error_kind, updated_at) VALUES (?, 'failed', ?, ?)
     ON CONFLICT (request_id) DO UPDATE SET
       ai_status = 'failed', ai_error_kind = excluded.ai_error_kind, updated_at = excluded.updated_at`,
  );
  const selectReport = db.prepare<[string], ReportRow>(
    `SELECT request_id, treatment_advice, ai_advice_ref, ai_status, ai_error_kind, updated_at
     FROM consultation_report WHERE request_id = ?`,
  );

  const applyCallback = db.transaction(
    (webhookId: string | undefined, callback: AdviceCallback, now: Date): CallbackOutcome => {
      const at = now.toISOString();
      if (webhookId !== undefined && recordWebhookId.run(webhookId, callback.request_id, at).changes === 0) {
        return 'duplicate';
      }
      if (callback.status === 'succeeded') storeSucceeded.run(callback.request_id, callback.advice_draft, at);
      else storeFailed.run(callback.request_id, callback.error.kind, at);
      return 'stored';
    },
  );

  return {
    applyCallback: (webhookId, callback, now) => applyCallback(webhookId, callback, now),
    findReport: (requestId) => selectReport.get(requestId),
  };
}
