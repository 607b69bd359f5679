import type { Logger } from './logger.js';
import type { AuditRecord, AuditStore } from './store/index.js';

export interface AuditTrailOptions {
  /** A record waits at most this long before it is written. */
  flushAfterMs?: number;
  /** Records written in one statement; a full batch is written at once. */
  batchSize?: number;
  /** Records kept while the database refuses them; beyond, the oldest are dropped (and logged). */
  maxPending?: number;
}

const DEFAULT_FLUSH_AFTER_MS = 1000;
const DEFAULT_BATCH_SIZE = 200;
const DEFAULT_MAX_PENDING = 50_000;

/**
 * The audit trail as the request path sees it: `record` only queues, and the records are written
 * in batches behind the requests (a second at most, or at once when a batch is full), so a request
 * never waits on the database for its record. Records the database refuses are kept and tried
 * again with the next batch; `close` writes what is left.
 */
export class AuditTrail {
  private pending: AuditRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** The last write failed: the next is left to the timer rather than tried on every new record. */
  private refused = false;
  private readonly flushAfterMs: number;
  private readonly batchSize: number;
  private readonly maxPending: number;

  constructor(
    private readonly store: AuditStore,
    private readonly logger: Logger,
    options: AuditTrailOptions = {},
  ) {
    this.flushAfterMs = options.flushAfterMs ?? DEFAULT_FLUSH_AFTER_MS;
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.maxPending = options.maxPending ?? DEFAULT_MAX_PENDING;
  }

  record(record: AuditRecord): void {
    this.pending.push(record);
    if (this.pending.length >= this.batchSize && !this.refused) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushAfterMs).unref();
  }

  /** Writes every record queued so far; resolves once they are stored (or found refused, and kept). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.writePending());
    return this.writing;
  }

  /** The stored records of requests that arrived in [since, until), those still queued included. */
  async *between(since: number, until: number): AsyncGenerator<AuditRecord> {
    await this.flush();
    yield* this.store.between(since, until);
  }

  async close(): Promise<void> {
    await this.flush();
    clearTimeout(this.timer);
    if (this.pending.length > 0) this.logger.error({ dropped: this.pending.length }, 'audit records lost: the database refused them until the gateway stopped');
  }

  private async writePending(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.batchSize);
      try {
        await this.store.append(batch);
        this.refused = false;
      } catch (error) {
        this.keepRefused(batch);
        this.logger.error({ err: error, pending: this.pending.length }, 'audit records could not be stored; kept to try again');
        return;
      }
    }
  }

  private keepRefused(batch: AuditRecord[]): void {
    this.refused = true;
    this.pending.unshift(...batch);
    const excess = this.pending.length - this.maxPending;
    if (excess > 0) {
      this.pending.splice(0, excess);
      this.logger.error({ dropped: excess }, 'audit records lost: the database refused them longer than the queue holds');
    }
    this.timer ??= setTimeout(() => void this.flush(), this.flushAfterMs).unref();
  }
}
