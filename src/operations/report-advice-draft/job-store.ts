import type { Generated, Kysely, Selectable, Transaction } from 'kysely';
import { ADVICE_JOB_STATES, type AdviceJobState } from '../../contract/advice.js';
import { columnTypes, type Migration, type StoreDatabase } from '../../platform/store/index.js';

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
 *
 * One state machine for both databases. Where several replicas share PostgreSQL, a claim takes
 * the oldest due row `FOR UPDATE SKIP LOCKED`, so two replicas never take the same job at once;
 * a replica that dies leaves its lease to end, and another takes the job over (a draft starts
 * again; a callback is sent again under the same webhook-id, which the receiver drops). Where
 * one gateway owns SQLite, every running draft at start was interrupted by its own restart.
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

/** The methods taking a claim return false, recording nothing, when the claim was lost. */
export interface AdviceJobStore {
  /** Creates the job unless its request_id exists; then tells whether the stored body is the same. */
  submit(job: NewAdviceJob, now: number): Promise<SubmitResult>;
  /**
   * At start: drafts a crash interrupted start again; returns how many. One gateway: every
   * running draft. Replicas: those whose lease has ended (other replicas hold the rest).
   */
  requeueInterrupted(now: number): Promise<number>;
  /**
   * The oldest due queued job (with replicas, also a running one whose lease ended), now running
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
   * function, or undefined where only this gateway submits.
   */
  subscribe(listener: () => void): Promise<(() => Promise<void>) | undefined>;
}

type JobColumns = {
  request_id: string;
  body_sha256: string;
  request_json: string | null;
  state: AdviceJobState;
  webhook_id: string;
  callback_json: string | null;
  outcome: AdviceOutcome | null;
  error_kind: string | null;
  error_message: string | null;
  draft_attempts: Generated<number>;
  delivery_attempts: Generated<number>;
  next_run_at: number;
  first_delivery_at: number | null;
  created_at: number;
  updated_at: number;
};

type JobRow = Selectable<JobColumns>;

type AdviceJobTables = {
  advice_jobs: JobColumns;
  advice_job_events: { id: Generated<number>; request_id: string; at: number; event: string; detail: string | null };
};

export const ADVICE_JOB_MIGRATIONS: readonly Migration[] = [
  {
    concept: 'advice_jobs',
    version: 1,
    name: 'advice_jobs',
    appliedBy: { sqlite: 3, postgres: 1 },
    up: async (db, dialect) => {
      await db.schema
        .createTable('advice_jobs')
        .addColumn('request_id', 'text', (col) => col.primaryKey())
        .addColumn('body_sha256', 'text', (col) => col.notNull())
        .addColumn('request_json', 'text')
        .addColumn('state', 'text', (col) => col.notNull())
        .addColumn('webhook_id', 'text', (col) => col.notNull())
        .addColumn('callback_json', 'text')
        .addColumn('outcome', 'text')
        .addColumn('error_kind', 'text')
        .addColumn('error_message', 'text')
        .addColumn('draft_attempts', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('delivery_attempts', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('next_run_at', 'bigint', (col) => col.notNull())
        .addColumn('first_delivery_at', 'bigint')
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .addColumn('updated_at', 'bigint', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('advice_jobs_due').on('advice_jobs').columns(['state', 'next_run_at']).execute();
      await db.schema
        .createTable('advice_job_events')
        .addColumn('id', columnTypes(dialect).serialKey, (col) =>
          dialect === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement(),
        )
        .addColumn('request_id', 'text', (col) => col.notNull().references('advice_jobs.request_id').onDelete('cascade'))
        .addColumn('at', 'bigint', (col) => col.notNull())
        .addColumn('event', 'text', (col) => col.notNull())
        .addColumn('detail', 'text')
        .execute();
      await db.schema.createIndex('advice_job_events_job').on('advice_job_events').columns(['request_id', 'id']).execute();
    },
  },
];

/** The channel a submission or a draft put back notifies (on commit), so every replica looks for work. */
const DUE_CHANNEL = 'advice_job_due';

/** Drafted jobs whose callback is still to be delivered. */
const DELIVERABLE_STATES: readonly AdviceJobState[] = ['succeeded', 'failed', 'delivering'];
const FINISHED_STATES: readonly AdviceJobState[] = ['delivered', 'dead'];

type Jobs = Kysely<AdviceJobTables>;

/** What `find` shows of a stored job and its history. */
function jobView(row: JobRow, events: AdviceJobEvent[]): AdviceJobView {
  const waiting = row.state === 'queued' || DELIVERABLE_STATES.includes(row.state);
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

const draftedEvent = (result: DraftResult) => (result.error ? `${result.outcome}: ${result.error.kind}` : result.outcome);

export class SqlAdviceJobStore implements AdviceJobStore {
  private readonly db: Jobs;

  /** The states a draft is due from: with replicas, a running draft falls due again when its lease ends. */
  private readonly draftStates: readonly AdviceJobState[];

  constructor(private readonly database: StoreDatabase) {
    this.db = database.db.withTables<AdviceJobTables>();
    this.draftStates = database.sharedByReplicas ? ['queued', 'running'] : ['queued'];
  }

  async submit(job: NewAdviceJob, now: number): Promise<SubmitResult> {
    return this.db.transaction().execute(async (trx) => {
      // Insert first: a concurrent insert of the same id on another replica waits for that one to commit.
      const inserted = await trx
        .insertInto('advice_jobs')
        .values({
          request_id: job.requestId,
          body_sha256: job.bodySha256,
          request_json: job.requestJson,
          state: 'queued',
          webhook_id: job.webhookId,
          next_run_at: now,
          created_at: now,
          updated_at: now,
        })
        .onConflict((conflict) => conflict.column('request_id').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows) === 1) {
        await record(trx, job.requestId, now, 'accepted');
        await this.database.notify(trx, DUE_CHANNEL);
        return { created: true };
      }
      const existing = await trx.selectFrom('advice_jobs').select('body_sha256').where('request_id', '=', job.requestId).executeTakeFirst();
      const sameBody = existing?.body_sha256 === job.bodySha256;
      await record(trx, job.requestId, now, sameBody ? 'resubmitted' : 'conflicting_submission');
      return { created: false, sameBody };
    });
  }

  async requeueInterrupted(now: number): Promise<number> {
    const shared = this.database.sharedByReplicas;
    return this.db.transaction().execute(async (trx) => {
      const requeued = await trx
        .updateTable('advice_jobs')
        .set({ state: 'queued', next_run_at: now, updated_at: now })
        .where('state', '=', 'running')
        .$if(shared, (query) => query.where('next_run_at', '<=', now))
        .returning('request_id')
        .execute();
      const detail = shared ? 'its lease ended' : 'the gateway restarted while drafting';
      for (const { request_id } of requeued) await record(trx, request_id, now, 'draft_interrupted', detail);
      return requeued.length;
    });
  }

  async claimDraft(now: number, leaseUntil: number): Promise<ClaimedDraft | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await this.oldestDue(trx, this.draftStates, 'request_json', now);
      if (!row || row.request_json === null) return undefined;
      const attempt = row.draft_attempts + 1;
      await trx
        .updateTable('advice_jobs')
        .set({ state: 'running', draft_attempts: attempt, next_run_at: leaseUntil, updated_at: now })
        .where('request_id', '=', row.request_id)
        .execute();
      if (row.state === 'running') await record(trx, row.request_id, now, 'draft_interrupted', 'its lease ended');
      await record(trx, row.request_id, now, 'draft_started', `attempt ${attempt}`);
      return { requestId: row.request_id, requestJson: row.request_json, attempt };
    });
  }

  async renewDraft(claim: JobClaim, leaseUntil: number): Promise<boolean> {
    const renewed = await this.heldDraft(this.db, claim).set({ next_run_at: leaseUntil }).executeTakeFirst();
    return Number(renewed.numUpdatedRows) === 1;
  }

  async retryDraft(claim: JobClaim, retryAt: number, reason: string, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const retried = await this.heldDraft(trx, claim).set({ state: 'queued', next_run_at: retryAt, updated_at: now }).executeTakeFirst();
      if (Number(retried.numUpdatedRows) !== 1) return false;
      await record(trx, claim.requestId, now, 'draft_retry', reason);
      // Put back by a replica that is stopping, or to retry later: the others plan their wake-up.
      await this.database.notify(trx, DUE_CHANNEL);
      return true;
    });
  }

  async finishDraft(claim: JobClaim, result: DraftResult, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const finished = await this.heldDraft(trx, claim)
        .set({
          state: result.outcome,
          outcome: result.outcome,
          request_json: null,
          callback_json: result.callbackJson,
          error_kind: result.error?.kind ?? null,
          error_message: result.error?.message ?? null,
          next_run_at: now,
          updated_at: now,
        })
        .executeTakeFirst();
      if (Number(finished.numUpdatedRows) !== 1) return false;
      await record(trx, claim.requestId, now, 'drafted', draftedEvent(result));
      return true;
    });
  }

  async claimDelivery(now: number, leaseUntil: number): Promise<ClaimedDelivery | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await this.oldestDue(trx, DELIVERABLE_STATES, 'callback_json', now);
      if (!row || row.callback_json === null) return undefined;
      const attempt = row.delivery_attempts + 1;
      const firstDeliveryAt = row.first_delivery_at ?? now;
      await trx
        .updateTable('advice_jobs')
        .set({ state: 'delivering', delivery_attempts: attempt, first_delivery_at: firstDeliveryAt, next_run_at: leaseUntil, updated_at: now })
        .where('request_id', '=', row.request_id)
        .execute();
      await record(trx, row.request_id, now, 'delivery_started', `attempt ${attempt}`);
      return {
        requestId: row.request_id,
        webhookId: row.webhook_id,
        callbackJson: row.callback_json,
        attempt,
        firstDeliveryAt,
        acceptedAt: row.created_at,
      };
    });
  }

  async recordDelivery(claim: JobClaim, detail: string, next: DeliveryNext, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const ended = await trx
        .updateTable('advice_jobs')
        .set({
          state: next.state,
          next_run_at: next.state === 'delivering' ? next.retryAt : now,
          updated_at: now,
          ...(next.state === 'delivered' ? { callback_json: null } : {}),
        })
        .where('request_id', '=', claim.requestId)
        .where('state', '=', 'delivering')
        .where('delivery_attempts', '=', claim.attempt)
        .executeTakeFirst();
      if (Number(ended.numUpdatedRows) !== 1) return false;
      await record(trx, claim.requestId, now, 'delivery_attempt', detail);
      if (next.state !== 'delivering') await record(trx, claim.requestId, now, next.state);
      return true;
    });
  }

  async nextDueAt(): Promise<{ draft: number | undefined; delivery: number | undefined }> {
    const { draft, delivery } = await this.db
      .selectNoFrom((eb) => {
        const earliest = (states: readonly AdviceJobState[]) =>
          eb.selectFrom('advice_jobs').select((min) => min.fn.min<number>('next_run_at').as('at')).where('state', 'in', states);
        return [earliest(this.draftStates).as('draft'), earliest(DELIVERABLE_STATES).as('delivery')];
      })
      .executeTakeFirstOrThrow();
    return { draft: draft ?? undefined, delivery: delivery ?? undefined };
  }

  async find(requestId: string): Promise<AdviceJobView | undefined> {
    const row = await this.db.selectFrom('advice_jobs').selectAll().where('request_id', '=', requestId).executeTakeFirst();
    if (!row) return undefined;
    const events = await this.db
      .selectFrom('advice_job_events')
      .select(['at', 'event', 'detail'])
      .where('request_id', '=', requestId)
      .orderBy('id')
      .execute();
    return jobView(row, events);
  }

  async redeliver(requestId: string, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const due = await trx
        .updateTable('advice_jobs')
        .set({ state: 'delivering', next_run_at: now, first_delivery_at: null, updated_at: now })
        .where('request_id', '=', requestId)
        .where('state', '=', 'dead')
        .where('callback_json', 'is not', null)
        .executeTakeFirst();
      if (Number(due.numUpdatedRows) !== 1) return false;
      await record(trx, requestId, now, 'redelivery_requested', 'by an operator');
      await this.database.notify(trx, DUE_CHANNEL);
      return true;
    });
  }

  async recent(limit: number): Promise<AdviceJobView[]> {
    const rows = await this.db.selectFrom('advice_jobs').select('request_id').orderBy('updated_at', 'desc').limit(limit).execute();
    const views = await Promise.all(rows.map(({ request_id }) => this.find(request_id)));
    return views.filter((view): view is AdviceJobView => view !== undefined);
  }

  async countByState(): Promise<Record<AdviceJobState, number>> {
    const counts = Object.fromEntries(ADVICE_JOB_STATES.map((state) => [state, 0])) as Record<AdviceJobState, number>;
    const rows = await this.db
      .selectFrom('advice_jobs')
      .select((eb) => ['state', eb.fn.countAll<number>().as('count')])
      .groupBy('state')
      .execute();
    for (const { state, count } of rows) counts[state] = Number(count);
    return counts;
  }

  async purgeFinished(before: number): Promise<number> {
    const purged = await this.db
      .deleteFrom('advice_jobs')
      .where('state', 'in', FINISHED_STATES)
      .where('updated_at', '<', before)
      .executeTakeFirst();
    return Number(purged.numDeletedRows);
  }

  subscribe(listener: () => void): Promise<(() => Promise<void>) | undefined> {
    return this.database.listen(DUE_CHANNEL, listener);
  }

  /**
   * The oldest row in `states` due by `now` that holds `payload`, locked where replicas claim at
   * once: a row another replica is claiming is skipped, not waited for.
   */
  private oldestDue(trx: Transaction<AdviceJobTables>, states: readonly AdviceJobState[], payload: 'request_json' | 'callback_json', now: number) {
    return trx
      .selectFrom('advice_jobs')
      .selectAll()
      .where('state', 'in', states)
      .where('next_run_at', '<=', now)
      .where(payload, 'is not', null)
      .orderBy('next_run_at')
      .orderBy('created_at')
      .limit(1)
      .$if(this.database.dialect === 'postgres', (query) => query.forUpdate().skipLocked())
      .executeTakeFirst();
  }

  /** The update of a draft, applied only while the claim still holds it. */
  private heldDraft(db: Jobs, claim: JobClaim) {
    return db
      .updateTable('advice_jobs')
      .where('request_id', '=', claim.requestId)
      .where('state', '=', 'running')
      .where('draft_attempts', '=', claim.attempt);
  }
}

async function record(trx: Jobs, requestId: string, now: number, event: string, detail: string | null = null): Promise<void> {
  await trx.insertInto('advice_job_events').values({ request_id: requestId, at: now, event, detail }).execute();
}
