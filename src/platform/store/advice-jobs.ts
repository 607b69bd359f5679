import type Database from 'better-sqlite3';
import { ADVICE_JOB_STATES, type AdviceJobState } from '../../contract/advice.js';

/**
 * AI-3 jobs, durable from the moment they are accepted:
 *
 *   queued ─► running ─► succeeded | failed ─► delivering ─► delivered
 *      ▲         │         (drafted; the callback            └──► dead (retry horizon passed)
 *      └─────────┘          body is stored)
 *   (draft retried, or interrupted by a restart)
 *
 * The request text is kept only until the draft is done, the callback body only until it is
 * delivered: an operator's view of a job (`AdviceJobView`) never holds patient text.
 *
 * A claimed draft or delivery is leased (`next_run_at` is the lease's end while it runs) and
 * fenced by its attempt number: what a gateway records about a claim it no longer holds (its
 * lease ended and another gateway took the job) changes nothing.
 */

export type AdviceOutcome = 'succeeded' | 'failed';

export interface NewAdviceJob {
  requestId: string;
  bodySha256: string;
  requestJson: string;
  webhookId: string;
}

export type SubmitResult = { created: true } | { created: false; sameBody: boolean };

/** A draft or delivery a gateway holds: the job and the attempt it counted when claiming it. */
export interface JobClaim {
  requestId: string;
  attempt: number;
}

export interface ClaimedDraft extends JobClaim {
  requestJson: string;
}

export interface ClaimedDelivery extends JobClaim {
  webhookId: string;
  callbackJson: string;
  firstDeliveryAt: number;
  acceptedAt: number;
}

export interface DraftResult {
  outcome: AdviceOutcome;
  callbackJson: string;
  error?: { kind: string; message: string };
}

export type DeliveryNext = { state: 'delivered' } | { state: 'delivering'; retryAt: number } | { state: 'dead' };

export interface AdviceJobEvent {
  at: number;
  event: string;
  detail: string | null;
}

export interface AdviceJobView {
  requestId: string;
  state: AdviceJobState;
  outcome: AdviceOutcome | null;
  error: { kind: string; message: string } | null;
  webhookId: string;
  draftAttempts: number;
  deliveryAttempts: number;
  nextRunAt: number | null;
  createdAt: number;
  updatedAt: number;
  events: AdviceJobEvent[];
}

/**
 * Async so a networked store can take its place: SQLite for one gateway (`SqliteAdviceJobStore`),
 * PostgreSQL for several replicas (`PostgresAdviceJobStore`). The methods taking a claim return
 * false, recording nothing, when the claim was lost.
 */
export interface AdviceJobStore {
  /** Creates the job unless its request_id exists; then tells whether the stored body is the same. */
  submit(job: NewAdviceJob, now: number): Promise<SubmitResult>;
  /**
   * At start: drafts a crash interrupted start again; returns how many. SQLite (one gateway):
   * every running draft. PostgreSQL: those whose lease has ended (other replicas hold the rest).
   */
  requeueInterrupted(now: number): Promise<number>;
  /**
   * The oldest due queued job (on PostgreSQL also a running one whose lease ended), now running
   * and leased until `leaseUntil`; its draft attempt counted.
   */
  claimDraft(now: number, leaseUntil: number): Promise<ClaimedDraft | undefined>;
  /** Extends the lease of a draft still held. */
  renewDraft(claim: JobClaim, leaseUntil: number): Promise<boolean>;
  /** A draft attempt failed but may be tried again at `retryAt`. */
  retryDraft(claim: JobClaim, retryAt: number, reason: string, now: number): Promise<boolean>;
  /** The draft is done (or failed for good): the callback body replaces the request text. */
  finishDraft(claim: JobClaim, result: DraftResult, now: number): Promise<boolean>;
  /**
   * The oldest job whose callback is due, its attempt counted and recorded before the POST, so
   * a crash mid-delivery repeats it. It is not due again before `leaseUntil`.
   */
  claimDelivery(now: number, leaseUntil: number): Promise<ClaimedDelivery | undefined>;
  recordDelivery(claim: JobClaim, detail: string, next: DeliveryNext, now: number): Promise<boolean>;
  /** When the earliest queued job and the earliest callback fall due; undefined where none waits. */
  nextDueAt(): Promise<{ draft: number | undefined; delivery: number | undefined }>;
  find(requestId: string): Promise<AdviceJobView | undefined>;
  countByState(): Promise<Record<AdviceJobState, number>>;
  /**
   * A dead job's callback is due again now, with a fresh retry horizon; false when the job is
   * not dead (or unknown). An operator's redelivery, recorded in the job's history.
   */
  redeliver(requestId: string, now: number): Promise<boolean>;
  /** The `limit` jobs changed last, newest first. */
  recent(limit: number): Promise<AdviceJobView[]>;
  /** Deletes delivered and dead jobs last changed before `before`; returns how many. */
  purgeFinished(before: number): Promise<number>;
  /**
   * Calls `listener` when any gateway sharing the store accepts a job or puts a draft back, so
   * an idle replica takes it at once rather than at its next poll; resolves to the unsubscribe
   * function. Absent where only this gateway submits (SQLite).
   */
  subscribe?(listener: () => void): Promise<() => Promise<void>>;
}

export interface JobRow {
  request_id: string;
  body_sha256: string;
  request_json: string | null;
  state: AdviceJobState;
  webhook_id: string;
  callback_json: string | null;
  outcome: AdviceOutcome | null;
  error_kind: string | null;
  error_message: string | null;
  draft_attempts: number;
  delivery_attempts: number;
  next_run_at: number;
  first_delivery_at: number | null;
  created_at: number;
  updated_at: number;
}

/** Drafted jobs whose callback is still to be delivered. */
const DELIVERABLE_STATES: ReadonlySet<AdviceJobState> = new Set(['succeeded', 'failed', 'delivering']);
export const DELIVERABLE = `(${[...DELIVERABLE_STATES].map((state) => `'${state}'`).join(', ')})`;
export const FINISHED = "('delivered', 'dead')";

/** What `find` shows of a stored job and its history. */
export function jobView(row: JobRow, events: AdviceJobEvent[]): AdviceJobView {
  const waiting = row.state === 'queued' || DELIVERABLE_STATES.has(row.state);
  return {
    requestId: row.request_id,
    state: row.state,
    outcome: row.outcome,
    error: row.error_kind === null ? null : { kind: row.error_kind, message: row.error_message ?? '' },
    webhookId: row.webhook_id,
    draftAttempts: row.draft_attempts,
    deliveryAttempts: row.delivery_attempts,
    nextRunAt: waiting ? row.next_run_at : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    events,
  };
}

export function emptyStateCounts(): Record<AdviceJobState, number> {
  return Object.fromEntries(ADVICE_JOB_STATES.map((state) => [state, 0])) as Record<AdviceJobState, number>;
}

export function claimedDelivery(row: JobRow, callbackJson: string, attempt: number, now: number): ClaimedDelivery {
  return {
    requestId: row.request_id,
    webhookId: row.webhook_id,
    callbackJson,
    attempt,
    firstDeliveryAt: row.first_delivery_at ?? now,
    acceptedAt: row.created_at,
  };
}

export const draftedEvent = (result: DraftResult) => (result.error ? `${result.outcome}: ${result.error.kind}` : result.outcome);

export class SqliteAdviceJobStore implements AdviceJobStore {
  private readonly statements;
  private readonly transactions;

  constructor(db: Database.Database) {
    const statements = {
      select: db.prepare<[string], JobRow>('SELECT * FROM advice_jobs WHERE request_id = ?'),
      insert: db.prepare(
        `INSERT INTO advice_jobs (request_id, body_sha256, request_json, state, webhook_id, next_run_at, created_at, updated_at)
         VALUES (@requestId, @bodySha256, @requestJson, 'queued', @webhookId, @now, @now, @now)`,
      ),
      event: db.prepare('INSERT INTO advice_job_events (request_id, at, event, detail) VALUES (?, ?, ?, ?)'),
      events: db.prepare<[string], AdviceJobEvent>(
        'SELECT at, event, detail FROM advice_job_events WHERE request_id = ? ORDER BY id',
      ),
      running: db.prepare<[], { request_id: string }>("SELECT request_id FROM advice_jobs WHERE state = 'running'"),
      requeue: db.prepare("UPDATE advice_jobs SET state = 'queued', next_run_at = ?, updated_at = ? WHERE request_id = ?"),
      retry: db.prepare(
        `UPDATE advice_jobs SET state = 'queued', next_run_at = @retryAt, updated_at = @now
         WHERE request_id = @requestId AND state = 'running' AND draft_attempts = @attempt`,
      ),
      renew: db.prepare(
        `UPDATE advice_jobs SET next_run_at = @leaseUntil
         WHERE request_id = @requestId AND state = 'running' AND draft_attempts = @attempt`,
      ),
      dueDraft: db.prepare<[number], JobRow>(
        "SELECT * FROM advice_jobs WHERE state = 'queued' AND next_run_at <= ? ORDER BY next_run_at, created_at LIMIT 1",
      ),
      startDraft: db.prepare(
        `UPDATE advice_jobs SET state = 'running', draft_attempts = draft_attempts + 1, next_run_at = ?, updated_at = ?
         WHERE request_id = ?`,
      ),
      finishDraft: db.prepare(
        `UPDATE advice_jobs SET state = @outcome, outcome = @outcome, request_json = NULL, callback_json = @callbackJson,
           error_kind = @errorKind, error_message = @errorMessage, next_run_at = @now, updated_at = @now
         WHERE request_id = @requestId AND state = 'running' AND draft_attempts = @attempt`,
      ),
      dueDelivery: db.prepare<[number], JobRow>(
        `SELECT * FROM advice_jobs WHERE state IN ${DELIVERABLE} AND next_run_at <= ? ORDER BY next_run_at, created_at LIMIT 1`,
      ),
      startDelivery: db.prepare(
        `UPDATE advice_jobs SET state = 'delivering', delivery_attempts = delivery_attempts + 1,
           first_delivery_at = COALESCE(first_delivery_at, @now), next_run_at = @leaseUntil, updated_at = @now
         WHERE request_id = @requestId`,
      ),
      endDelivery: db.prepare(
        `UPDATE advice_jobs SET state = @state, next_run_at = @nextRunAt, updated_at = @now,
           callback_json = CASE WHEN @state = 'delivered' THEN NULL ELSE callback_json END
         WHERE request_id = @requestId AND state = 'delivering' AND delivery_attempts = @attempt`,
      ),
      nextDue: db.prepare<[], { draft: number | null; delivery: number | null }>(
        `SELECT (SELECT MIN(next_run_at) FROM advice_jobs WHERE state = 'queued') AS draft,
                (SELECT MIN(next_run_at) FROM advice_jobs WHERE state IN ${DELIVERABLE}) AS delivery`,
      ),
      countByState: db.prepare<[], { state: AdviceJobState; count: number }>(
        'SELECT state, COUNT(*) AS count FROM advice_jobs GROUP BY state',
      ),
      redeliver: db.prepare(
        `UPDATE advice_jobs SET state = 'delivering', next_run_at = @now, first_delivery_at = NULL, updated_at = @now
         WHERE request_id = @requestId AND state = 'dead' AND callback_json IS NOT NULL`,
      ),
      recent: db.prepare<[number], { request_id: string }>('SELECT request_id FROM advice_jobs ORDER BY updated_at DESC LIMIT ?'),
      purge: db.prepare(`DELETE FROM advice_jobs WHERE state IN ${FINISHED} AND updated_at < ?`),
    };
    this.statements = statements;
    const record = (requestId: string, now: number, event: string, detail: string | null = null) =>
      statements.event.run(requestId, now, event, detail);

    this.transactions = {
      submit: db.transaction((job: NewAdviceJob, now: number): SubmitResult => {
        const existing = statements.select.get(job.requestId);
        if (existing) {
          const sameBody = existing.body_sha256 === job.bodySha256;
          record(job.requestId, now, sameBody ? 'resubmitted' : 'conflicting_submission');
          return { created: false, sameBody };
        }
        statements.insert.run({ ...job, now });
        record(job.requestId, now, 'accepted');
        return { created: true };
      }),
      requeueInterrupted: db.transaction((now: number): number => {
        const interrupted = statements.running.all();
        for (const { request_id } of interrupted) {
          statements.requeue.run(now, now, request_id);
          record(request_id, now, 'draft_interrupted', 'the gateway restarted while drafting');
        }
        return interrupted.length;
      }),
      claimDraft: db.transaction((now: number, leaseUntil: number): ClaimedDraft | undefined => {
        const row = statements.dueDraft.get(now);
        if (!row || row.request_json === null) return undefined;
        statements.startDraft.run(leaseUntil, now, row.request_id);
        const attempt = row.draft_attempts + 1;
        record(row.request_id, now, 'draft_started', `attempt ${attempt}`);
        return { requestId: row.request_id, requestJson: row.request_json, attempt };
      }),
      retryDraft: db.transaction((claim: JobClaim, retryAt: number, reason: string, now: number): boolean => {
        if (statements.retry.run({ ...claim, retryAt, now }).changes === 0) return false;
        record(claim.requestId, now, 'draft_retry', reason);
        return true;
      }),
      finishDraft: db.transaction((claim: JobClaim, result: DraftResult, now: number): boolean => {
        const { changes } = statements.finishDraft.run({
          ...claim,
          outcome: result.outcome,
          callbackJson: result.callbackJson,
          errorKind: result.error?.kind ?? null,
          errorMessage: result.error?.message ?? null,
          now,
        });
        if (changes === 0) return false;
        record(claim.requestId, now, 'drafted', draftedEvent(result));
        return true;
      }),
      claimDelivery: db.transaction((now: number, leaseUntil: number): ClaimedDelivery | undefined => {
        const row = statements.dueDelivery.get(now);
        if (!row || row.callback_json === null) return undefined;
        statements.startDelivery.run({ requestId: row.request_id, now, leaseUntil });
        const attempt = row.delivery_attempts + 1;
        record(row.request_id, now, 'delivery_started', `attempt ${attempt}`);
        return claimedDelivery(row, row.callback_json, attempt, now);
      }),
      recordDelivery: db.transaction((claim: JobClaim, detail: string, next: DeliveryNext, now: number): boolean => {
        const nextRunAt = next.state === 'delivering' ? next.retryAt : now;
        if (statements.endDelivery.run({ ...claim, state: next.state, nextRunAt, now }).changes === 0) return false;
        record(claim.requestId, now, 'delivery_attempt', detail);
        if (next.state !== 'delivering') record(claim.requestId, now, next.state);
        return true;
      }),
      redeliver: db.transaction((requestId: string, now: number): boolean => {
        if (statements.redeliver.run({ requestId, now }).changes === 0) return false;
        record(requestId, now, 'redelivery_requested', 'by an operator');
        return true;
      }),
    };
  }

  async submit(job: NewAdviceJob, now: number): Promise<SubmitResult> {
    return this.transactions.submit(job, now);
  }

  async requeueInterrupted(now: number): Promise<number> {
    return this.transactions.requeueInterrupted(now);
  }

  async claimDraft(now: number, leaseUntil: number): Promise<ClaimedDraft | undefined> {
    return this.transactions.claimDraft(now, leaseUntil);
  }

  async renewDraft(claim: JobClaim, leaseUntil: number): Promise<boolean> {
    return this.statements.renew.run({ ...claim, leaseUntil }).changes > 0;
  }

  async retryDraft(claim: JobClaim, retryAt: number, reason: string, now: number): Promise<boolean> {
    return this.transactions.retryDraft(claim, retryAt, reason, now);
  }

  async finishDraft(claim: JobClaim, result: DraftResult, now: number): Promise<boolean> {
    return this.transactions.finishDraft(claim, result, now);
  }

  async claimDelivery(now: number, leaseUntil: number): Promise<ClaimedDelivery | undefined> {
    return this.transactions.claimDelivery(now, leaseUntil);
  }

  async recordDelivery(claim: JobClaim, detail: string, next: DeliveryNext, now: number): Promise<boolean> {
    return this.transactions.recordDelivery(claim, detail, next, now);
  }

  async nextDueAt(): Promise<{ draft: number | undefined; delivery: number | undefined }> {
    const { draft, delivery } = this.statements.nextDue.get()!;
    return { draft: draft ?? undefined, delivery: delivery ?? undefined };
  }

  async find(requestId: string): Promise<AdviceJobView | undefined> {
    const row = this.statements.select.get(requestId);
    return row ? jobView(row, this.statements.events.all(requestId)) : undefined;
  }

  async redeliver(requestId: string, now: number): Promise<boolean> {
    return this.transactions.redeliver(requestId, now);
  }

  async recent(limit: number): Promise<AdviceJobView[]> {
    const views = await Promise.all(this.statements.recent.all(limit).map(({ request_id }) => this.find(request_id)));
    return views.filter((view): view is AdviceJobView => view !== undefined);
  }

  async countByState(): Promise<Record<AdviceJobState, number>> {
    const counts = emptyStateCounts();
    for (const { state, count } of this.statements.countByState.all()) counts[state] = count;
    return counts;
  }

  async purgeFinished(before: number): Promise<number> {
    return this.statements.purge.run(before).changes;
  }
}
