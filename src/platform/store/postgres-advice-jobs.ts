import type pg from 'pg';
import type { AdviceJobState } from '../../contract/advice.js';
import {
  DELIVERABLE,
  FINISHED,
  claimedDelivery,
  draftedEvent,
  emptyStateCounts,
  jobView,
  type AdviceJobEvent,
  type AdviceJobStore,
  type AdviceJobView,
  type ClaimedDelivery,
  type ClaimedDraft,
  type DeliveryNext,
  type DraftResult,
  type JobClaim,
  type JobRow,
  type NewAdviceJob,
  type SubmitResult,
} from './advice-jobs.js';
import { inTransaction } from './postgres.js';

type Queryable = Pick<pg.PoolClient, 'query'>;

/** The channel a submission or a draft put back notifies (on commit), so every replica looks for work. */
const SUBMITTED_CHANNEL = 'advice_job_due';

/** A running draft whose lease has ended was interrupted: its gateway died or lost the database. */
const INTERRUPTED = "state = 'running' AND next_run_at <= $1";

/**
 * AI-3 jobs shared by several gateway replicas. A claim is one statement that takes the oldest
 * due row `FOR UPDATE SKIP LOCKED`, so two replicas never take the same job at once, and leases
 * it; a replica that dies leaves its lease to end, and another takes the job over (a draft
 * starts again; a callback is sent again under the same webhook-id, which the receiver drops).
 */
export class PostgresAdviceJobStore implements AdviceJobStore {
  constructor(private readonly pool: pg.Pool) {}

  async submit(job: NewAdviceJob, now: number): Promise<SubmitResult> {
    return inTransaction(this.pool, async (client) => {
      // A concurrent insert of the same id on another replica waits for that one to commit.
      const inserted = await client.query(
        `INSERT INTO advice_jobs (request_id, body_sha256, request_json, state, webhook_id, next_run_at, created_at, updated_at)
         VALUES ($1, $2, $3, 'queued', $4, $5, $5, $5) ON CONFLICT (request_id) DO NOTHING`,
        [job.requestId, job.bodySha256, job.requestJson, job.webhookId, now],
      );
      if (inserted.rowCount === 1) {
        await record(client, job.requestId, now, 'accepted');
        await client.query(`NOTIFY ${SUBMITTED_CHANNEL}`);
        return { created: true };
      }
      const { rows } = await client.query<{ body_sha256: string }>('SELECT body_sha256 FROM advice_jobs WHERE request_id = $1', [
        job.requestId,
      ]);
      const sameBody = rows[0]?.body_sha256 === job.bodySha256;
      await record(client, job.requestId, now, sameBody ? 'resubmitted' : 'conflicting_submission');
      return { created: false, sameBody };
    });
  }

  async requeueInterrupted(now: number): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ request_id: string }>(
        `UPDATE advice_jobs SET state = 'queued', next_run_at = $1, updated_at = $1 WHERE ${INTERRUPTED} RETURNING request_id`,
        [now],
      );
      for (const { request_id } of rows) await record(client, request_id, now, 'draft_interrupted', 'its lease ended');
      return rows.length;
    });
  }

  async claimDraft(now: number, leaseUntil: number): Promise<ClaimedDraft | undefined> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ request_id: string; request_json: string; draft_attempts: number; was: string }>(
        `WITH due AS (
           SELECT request_id, state FROM advice_jobs
           WHERE (state = 'queued' AND next_run_at <= $1 OR ${INTERRUPTED}) AND request_json IS NOT NULL
           ORDER BY next_run_at, created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
         UPDATE advice_jobs AS job SET state = 'running', draft_attempts = job.draft_attempts + 1, next_run_at = $2, updated_at = $1
         FROM due WHERE job.request_id = due.request_id
         RETURNING job.request_id, job.request_json, job.draft_attempts, due.state AS was`,
        [now, leaseUntil],
      );
      const row = rows[0];
      if (!row) return undefined;
      if (row.was === 'running') await record(client, row.request_id, now, 'draft_interrupted', 'its lease ended');
      await record(client, row.request_id, now, 'draft_started', `attempt ${row.draft_attempts}`);
      return { requestId: row.request_id, requestJson: row.request_json, attempt: row.draft_attempts };
    });
  }

  async renewDraft(claim: JobClaim, leaseUntil: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE advice_jobs SET next_run_at = $3 WHERE request_id = $1 AND state = 'running' AND draft_attempts = $2`,
      [claim.requestId, claim.attempt, leaseUntil],
    );
    return rowCount === 1;
  }

  async retryDraft(claim: JobClaim, retryAt: number, reason: string, now: number): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query(
        `UPDATE advice_jobs SET state = 'queued', next_run_at = $3, updated_at = $4
         WHERE request_id = $1 AND state = 'running' AND draft_attempts = $2`,
        [claim.requestId, claim.attempt, retryAt, now],
      );
      if (rowCount !== 1) return false;
      await record(client, claim.requestId, now, 'draft_retry', reason);
      // Put back by a replica that is stopping, or to retry later: the others plan their wake-up.
      await client.query(`NOTIFY ${SUBMITTED_CHANNEL}`);
      return true;
    });
  }

  async finishDraft(claim: JobClaim, result: DraftResult, now: number): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query(
        `UPDATE advice_jobs SET state = $3, outcome = $3, request_json = NULL, callback_json = $4,
           error_kind = $5, error_message = $6, next_run_at = $7, updated_at = $7
         WHERE request_id = $1 AND state = 'running' AND draft_attempts = $2`,
        [claim.requestId, claim.attempt, result.outcome, result.callbackJson, result.error?.kind ?? null, result.error?.message ?? null, now],
      );
      if (rowCount !== 1) return false;
      await record(client, claim.requestId, now, 'drafted', draftedEvent(result));
      return true;
    });
  }

  async claimDelivery(now: number, leaseUntil: number): Promise<ClaimedDelivery | undefined> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<JobRow>(
        `WITH due AS (
           SELECT request_id FROM advice_jobs
           WHERE state IN ${DELIVERABLE} AND next_run_at <= $1 AND callback_json IS NOT NULL
           ORDER BY next_run_at, created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
         UPDATE advice_jobs AS job SET state = 'delivering', delivery_attempts = job.delivery_attempts + 1,
           first_delivery_at = COALESCE(job.first_delivery_at, $1), next_run_at = $2, updated_at = $1
         FROM due WHERE job.request_id = due.request_id
         RETURNING job.*`,
        [now, leaseUntil],
      );
      const row = rows[0];
      if (!row || row.callback_json === null) return undefined;
      await record(client, row.request_id, now, 'delivery_started', `attempt ${row.delivery_attempts}`);
      return claimedDelivery(row, row.callback_json, row.delivery_attempts, now);
    });
  }

  async recordDelivery(claim: JobClaim, detail: string, next: DeliveryNext, now: number): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const nextRunAt = next.state === 'delivering' ? next.retryAt : now;
      const { rowCount } = await client.query(
        `UPDATE advice_jobs SET state = $3, next_run_at = $4, updated_at = $5,
           callback_json = CASE WHEN $3 = 'delivered' THEN NULL ELSE callback_json END
         WHERE request_id = $1 AND state = 'delivering' AND delivery_attempts = $2`,
        [claim.requestId, claim.attempt, next.state, nextRunAt, now],
      );
      if (rowCount !== 1) return false;
      await record(client, claim.requestId, now, 'delivery_attempt', detail);
      if (next.state !== 'delivering') await record(client, claim.requestId, now, next.state);
      return true;
    });
  }

  async nextDueAt(): Promise<{ draft: number | undefined; delivery: number | undefined }> {
    const { rows } = await this.pool.query<{ draft: number | null; delivery: number | null }>(
      `SELECT (SELECT MIN(next_run_at) FROM advice_jobs WHERE state IN ('queued', 'running')) AS draft,
              (SELECT MIN(next_run_at) FROM advice_jobs WHERE state IN ${DELIVERABLE}) AS delivery`,
    );
    const { draft, delivery } = rows[0]!;
    return { draft: draft ?? undefined, delivery: delivery ?? undefined };
  }

  async find(requestId: string): Promise<AdviceJobView | undefined> {
    const { rows } = await this.pool.query<JobRow>('SELECT * FROM advice_jobs WHERE request_id = $1', [requestId]);
    if (!rows[0]) return undefined;
    const events = await this.pool.query<AdviceJobEvent>(
      'SELECT at, event, detail FROM advice_job_events WHERE request_id = $1 ORDER BY id',
      [requestId],
    );
    return jobView(rows[0], events.rows);
  }

  async redeliver(requestId: string, now: number): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query(
        `UPDATE advice_jobs SET state = 'delivering', next_run_at = $2, first_delivery_at = NULL, updated_at = $2
         WHERE request_id = $1 AND state = 'dead' AND callback_json IS NOT NULL`,
        [requestId, now],
      );
      if (rowCount !== 1) return false;
      await record(client, requestId, now, 'redelivery_requested', 'by an operator');
      await client.query(`NOTIFY ${SUBMITTED_CHANNEL}`);
      return true;
    });
  }

  async recent(limit: number): Promise<AdviceJobView[]> {
    const { rows } = await this.pool.query<{ request_id: string }>('SELECT request_id FROM advice_jobs ORDER BY updated_at DESC LIMIT $1', [limit]);
    const views = await Promise.all(rows.map(({ request_id }) => this.find(request_id)));
    return views.filter((view): view is AdviceJobView => view !== undefined);
  }

  async countByState(): Promise<Record<AdviceJobState, number>> {
    const counts = emptyStateCounts();
    const { rows } = await this.pool.query<{ state: AdviceJobState; count: number }>(
      'SELECT state, COUNT(*) AS count FROM advice_jobs GROUP BY state',
    );
    for (const { state, count } of rows) counts[state] = count;
    return counts;
  }

  /** Holds one connection LISTENing; if it breaks, the runner's polling still finds the work. */
  async subscribe(listener: () => void): Promise<() => Promise<void>> {
    const client = await this.pool.connect();
    client.on('error', () => undefined);
    client.on('notification', listener);
    await client.query(`LISTEN ${SUBMITTED_CHANNEL}`);
    return async () => {
      client.off('notification', listener);
      await client.query(`UNLISTEN ${SUBMITTED_CHANNEL}`).catch(() => undefined);
      client.release();
    };
  }

  async purgeFinished(before: number): Promise<number> {
    const { rowCount } = await this.pool.query(`DELETE FROM advice_jobs WHERE state IN ${FINISHED} AND updated_at < $1`, [before]);
    return rowCount ?? 0;
  }
}

async function record(client: Queryable, requestId: string, now: number, event: string, detail: string | null = null): Promise<void> {
  await client.query('INSERT INTO advice_job_events (request_id, at, event, detail) VALUES ($1, $2, $3, $4)', [
    requestId,
    now,
    event,
    detail,
  ]);
}
