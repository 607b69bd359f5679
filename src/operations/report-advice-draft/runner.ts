import { adviceCallback, reportAdviceDraftRequest, type AdviceCallback, type ReportAdviceDraftRequest } from '../../contract/advice.js';
import { GatewayError } from '../../errors.js';
import { nextAttempt, type DeliveryAttempt, type RetryPolicy } from './callbacks/delivery.js';
import { describeError, type Logger } from '../../platform/logger.js';
import type { AdviceJobStore, ClaimedDelivery, ClaimedDraft, DraftResult } from './job-store.js';

export interface AdviceRunnerSettings {
  /** Drafts at once; each holds one LLM sequence while it generates. */
  draftConcurrency: number;
  /** Draft attempts for retryable failures (overloaded, timeout, engine_failed) before a failed callback. */
  draftAttempts: number;
  deliveryConcurrency: number;
  /** A claimed draft is held this long, renewed every third of it while it runs. */
  draftLeaseMs: number;
  /** A claimed delivery is not due again before this (the POST's timeout plus a margin). */
  deliveryLeaseMs: number;
  retry: RetryPolicy;
  /** Delivered and dead jobs are deleted this long after they ended. */
  retentionMs: number;
}

export interface AdviceRunnerHooks {
  /** Drafts one request; throws a GatewayError when it cannot. */
  draft(request: ReportAdviceDraftRequest, signal: AbortSignal): Promise<string>;
  processorVersion(): AdviceCallback['processor_version'];
  deliver(delivery: ClaimedDelivery, signal: AbortSignal): Promise<DeliveryAttempt>;
  /** Drafting waits while the LLM is still loading instead of spending attempts on it. */
  llmStarting(): boolean;
  observe?: {
    drafted?(outcome: 'succeeded' | 'failed', seconds: number): void;
    delivery?(delivered: boolean): void;
    finished?(state: 'delivered' | 'dead', secondsSinceAccepted: number): void;
  };
}

const IDLE_POLL_MS = 5_000;
const MIN_POLL_MS = 20;
/** How often to look again while the LLM is still loading and drafts wait for it. */
const STARTING_POLL_MS = 500;
const PURGE_EVERY_MS = 60 * 60 * 1000;
const DRAFT_RETRY_BASE_MS = 2_000;

/**
 * Takes AI-3 jobs from the store through drafting and callback delivery. Every step is
 * recorded before and after it happens, so a process killed at any moment resumes where it
 * was: an interrupted draft is drafted again, an interrupted POST is sent again with the same
 * webhook-id (the receiver deduplicates). Several runners (replicas) may share one store: each
 * claim is leased, and a draft whose lease could not be renewed is given up to whoever took it.
 */
export class AdviceJobRunner {
  private readonly inFlight = new Map<string, AbortController>();
  private drafting = 0;
  private delivering = 0;
  private timer: NodeJS.Timeout | undefined;
  private pumping = false;
  private pumpAgain = false;
  private closed = false;
  private lastPurge = 0;
  private unsubscribe: (() => Promise<void>) | undefined;
  private readonly tasks = new Set<Promise<void>>();

  constructor(
    private readonly store: AdviceJobStore,
    private readonly settings: AdviceRunnerSettings,
    private readonly hooks: AdviceRunnerHooks,
    private readonly log: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  async start(): Promise<void> {
    const requeued = await this.store.requeueInterrupted(this.clock());
    if (requeued > 0) this.log.warn({ jobs: requeued }, 'advice drafts interrupted by a restart are queued again');
    this.unsubscribe = await this.store.subscribe?.(() => this.kick());
    this.kick();
  }

  /** Looks for due work now (after a submission, or when a task ends). */
  kick(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    this.pump()
      .catch((error: unknown) => {
        // A networked store (PostgreSQL) can be briefly unreachable: look again later rather than stall.
        this.log.error({ err: describeError(error) }, 'advice job runner failed to read the store; it will look again');
        this.wakeIn(IDLE_POLL_MS);
      })
      .finally(() => {
        this.pumping = false;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.kick();
        }
      });
  }

  /** Stops taking work, aborts what runs (it resumes on the next start) and waits for it to be recorded. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const controller of this.inFlight.values()) controller.abort();
    await Promise.allSettled([...this.tasks, this.unsubscribe?.()]);
  }

  private async pump(): Promise<void> {
    const now = this.clock();
    while (this.drafting < this.settings.draftConcurrency && !this.hooks.llmStarting()) {
      const claim = await this.store.claimDraft(now, now + this.settings.draftLeaseMs);
      if (!claim) break;
      this.track(claim.requestId, (signal) => this.runDraft(claim, signal), 'draft');
    }
    while (this.delivering < this.settings.deliveryConcurrency) {
      const claim = await this.store.claimDelivery(now, now + this.settings.deliveryLeaseMs);
      if (!claim) break;
      this.track(claim.requestId, (signal) => this.runDelivery(claim, signal), 'delivery');
    }
    if (now - this.lastPurge >= PURGE_EVERY_MS) {
      this.lastPurge = now;
      const purged = await this.store.purgeFinished(now - this.settings.retentionMs);
      if (purged > 0) this.log.info({ jobs: purged }, 'finished advice jobs purged');
    }
    await this.scheduleWake(now);
  }

  /**
   * Sleeps until the next job this runner could take falls due. Work it cannot take now (all
   * draft or delivery slots busy) is picked up when a slot frees, which kicks the runner.
   */
  private async scheduleWake(now: number): Promise<void> {
    const due = await this.store.nextDueAt();
    const draftsBlocked = this.drafting >= this.settings.draftConcurrency;
    const candidates = [
      draftsBlocked || due.draft === undefined ? undefined : this.hooks.llmStarting() ? now + STARTING_POLL_MS : due.draft,
      this.delivering >= this.settings.deliveryConcurrency ? undefined : due.delivery,
    ].filter((at): at is number => at !== undefined);
    this.wakeIn(Math.min(IDLE_POLL_MS, Math.max(MIN_POLL_MS, Math.min(now + IDLE_POLL_MS, ...candidates) - now)));
  }

  private wakeIn(ms: number): void {
    clearTimeout(this.timer);
    if (!this.closed) this.timer = setTimeout(() => this.kick(), ms).unref();
  }

  private track(requestId: string, work: (signal: AbortSignal) => Promise<void>, kind: 'draft' | 'delivery'): void {
    const controller = new AbortController();
    this.inFlight.set(requestId, controller);
    if (kind === 'draft') this.drafting++;
    else this.delivering++;
    const task = work(controller.signal)
      .catch((error: unknown) =>
        this.log.error({ request_id: requestId, err: describeError(error) }, `advice ${kind} could not be recorded`),
      )
      .finally(() => {
        this.inFlight.delete(requestId);
        if (kind === 'draft') this.drafting--;
        else this.delivering--;
        this.tasks.delete(task);
        this.kick();
      });
    this.tasks.add(task);
  }

  private async runDraft(claim: ClaimedDraft, signal: AbortSignal): Promise<void> {
    const log = this.log.child({ request_id: claim.requestId });
    const heartbeat = setInterval(() => this.renewLease(claim, log), this.settings.draftLeaseMs / 3).unref();
    try {
      await this.draftAndRecord(claim, signal, log);
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Keeps the draft's lease; when another gateway has taken the job, stops drafting it. */
  private renewLease(claim: ClaimedDraft, log: Logger): void {
    this.store
      .renewDraft(claim, this.clock() + this.settings.draftLeaseMs)
      .then((held) => {
        if (held) return;
        log.warn({ attempt: claim.attempt }, 'advice draft lease lost to another gateway; this attempt stops');
        this.inFlight.get(claim.requestId)?.abort();
      })
      .catch((error: unknown) => log.warn({ err: describeError(error) }, 'advice draft lease could not be renewed'));
  }

  private async draftAndRecord(claim: ClaimedDraft, signal: AbortSignal, log: Logger): Promise<void> {
    const startedAt = this.clock();
    try {
      const request = reportAdviceDraftRequest.parse(JSON.parse(claim.requestJson));
      const draft = await this.hooks.draft(request, signal);
      await this.finish(claim, { status: 'succeeded', advice_draft: draft }, startedAt, log);
    } catch (error) {
      const failure = asGatewayError(error);
      // Aborted by close(), or because the lease was lost: then the gateway that took the job drafts it.
      if (signal.aborted) {
        if (this.closed) await this.store.retryDraft(claim, this.clock(), 'interrupted: the gateway is shutting down', this.clock());
        return;
      }
      if (failure.kind === 'internal') log.error({ err: describeError(error) }, 'advice draft failed unexpectedly');
      if (failure.retryable && claim.attempt < this.settings.draftAttempts) {
        const retryAt = this.clock() + DRAFT_RETRY_BASE_MS * 2 ** (claim.attempt - 1);
        log.warn({ kind: failure.kind, attempt: claim.attempt }, 'advice draft failed; it will be tried again');
        await this.store.retryDraft(claim, retryAt, `${failure.kind}: ${failure.message}`, this.clock());
        return;
      }
      log.warn({ kind: failure.kind, attempt: claim.attempt }, 'advice draft failed for good; a failed callback follows');
      await this.finish(claim, { status: 'failed', error: { kind: failure.kind, message: failure.message } }, startedAt, log);
    }
  }

  private async finish(
    claim: ClaimedDraft,
    result: { status: 'succeeded'; advice_draft: string } | { status: 'failed'; error: { kind: string; message: string } },
    startedAt: number,
    log: Logger,
  ): Promise<void> {
    const now = this.clock();
    const callback = adviceCallback.parse({
      request_id: claim.requestId,
      ...result,
      processor_version: this.hooks.processorVersion(),
      completed_at: new Date(now).toISOString(),
    });
    const stored: DraftResult = {
      outcome: callback.status,
      callbackJson: JSON.stringify(callback),
      ...(callback.status === 'failed' ? { error: callback.error } : {}),
    };
    if (!(await this.store.finishDraft(claim, stored, now))) {
      log.warn({ attempt: claim.attempt }, 'advice draft finished after another gateway took the job; the other attempt counts');
      return;
    }
    this.hooks.observe?.drafted?.(callback.status, (now - startedAt) / 1000);
    log.info({ outcome: callback.status, draft_chars: result.status === 'succeeded' ? result.advice_draft.length : 0 }, 'advice drafted');
  }

  private async runDelivery(claim: ClaimedDelivery, signal: AbortSignal): Promise<void> {
    const attempt = await this.hooks.deliver(claim, signal);
    const now = this.clock();
    const log = this.log.child({ request_id: claim.requestId, webhook_id: claim.webhookId });
    this.hooks.observe?.delivery?.(attempt.delivered);
    const detail = `attempt ${claim.attempt}: ${attempt.detail}`;
    if (attempt.delivered) {
      await this.store.recordDelivery(claim, detail, { state: 'delivered' }, now);
      this.hooks.observe?.finished?.('delivered', (now - claim.acceptedAt) / 1000);
      log.info({ attempt: claim.attempt }, 'advice callback delivered');
      return;
    }
    const next = this.closed ? { retryAt: now } : nextAttempt(claim.attempt, claim.firstDeliveryAt, now, this.settings.retry);
    if ('giveUp' in next) {
      await this.store.recordDelivery(claim, detail, { state: 'dead' }, now);
      this.hooks.observe?.finished?.('dead', (now - claim.acceptedAt) / 1000);
      log.error({ attempts: claim.attempt, last: attempt.detail }, 'advice callback given up after the retry horizon');
      return;
    }
    await this.store.recordDelivery(claim, detail, { state: 'delivering', retryAt: next.retryAt }, now);
    log.warn({ attempt: claim.attempt, last: attempt.detail, retry_in_ms: next.retryAt - now }, 'advice callback failed; retrying');
  }
}

function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError('internal', 'drafting failed unexpectedly; it has been logged', { cause: error });
}
