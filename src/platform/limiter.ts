import type { LimiterSettings } from '../config/index.js';
import { GatewayError } from '../errors.js';

export type RejectReason = 'overloaded' | 'timeout' | 'cancelled';

/** Hooks for metrics; the limiter itself knows nothing of Prometheus. */
export interface LimiterObserver {
  queueWait?(seconds: number): void;
  rejected?(reason: RejectReason): void;
}

interface QueuedJob {
  start(): void;
  reject(error: GatewayError): void;
}

const INITIAL_RUN_ESTIMATE_MS = 1_000;
const MAX_RETRY_AFTER_SECONDS = 300;

/**
 * Bounded concurrency in front of one engine: at most `maxRunning` tasks run, at most
 * `maxQueued` wait, none waits past `queueTimeoutMs`. A caller's abort drops a queued task
 * and is forwarded to a running one through the AbortSignal the task receives.
 */
export class Limiter {
  private runningCount = 0;
  private readonly queue: QueuedJob[] = [];
  private averageRunMs = INITIAL_RUN_ESTIMATE_MS;

  constructor(
    readonly name: string,
    private readonly settings: LimiterSettings,
    private readonly observer: LimiterObserver = {},
  ) {}

  get running(): number {
    return this.runningCount;
  }

  get queued(): number {
    return this.queue.length;
  }

  get maxRunning(): number {
    return this.settings.maxRunning;
  }

  run<T>(task: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(this.reject('cancelled', cancelledError(signal)));
    if (this.runningCount < this.settings.maxRunning) return this.execute(task, signal);
    if (this.queue.length >= this.settings.maxQueued) {
      return Promise.reject(
        this.reject(
          'overloaded',
          new GatewayError('overloaded', `the ${this.name} engine is busy; try again later`, {
            retryAfterSeconds: this.retryAfterSeconds(),
          }),
        ),
      );
    }
    return this.enqueue(task, signal);
  }

  /** Seconds until a queue slot is likely free, from the recent average run time. */
  retryAfterSeconds(): number {
    const waves = (this.queue.length + 1) / this.settings.maxRunning;
    return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil((waves * this.averageRunMs) / 1000)));
  }

  private enqueue<T>(task: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const enqueuedAt = performance.now();
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const index = this.queue.indexOf(job);
        if (index >= 0) this.queue.splice(index, 1);
      };
      const job: QueuedJob = {
        start: () => {
          leave();
          this.observer.queueWait?.((performance.now() - enqueuedAt) / 1000);
          this.execute(task, signal).then(resolve, reject);
        },
        reject: (error) => {
          leave();
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        const waited = Math.round(performance.now() - enqueuedAt);
        job.reject(
          this.reject('timeout', new GatewayError('timeout', `waited ${waited} ms in the ${this.name} queue without a free slot`)),
        );
      }, this.settings.queueTimeoutMs);
      const onAbort = () => job.reject(this.reject('cancelled', cancelledError(signal)));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(job);
    });
  }

  private async execute<T>(task: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    this.runningCount++;
    const startedAt = performance.now();
    try {
      return await task(signal ?? new AbortController().signal);
    } finally {
      this.averageRunMs = 0.8 * this.averageRunMs + 0.2 * (performance.now() - startedAt);
      this.runningCount--;
      this.queue[0]?.start();
    }
  }

  private reject(reason: RejectReason, error: GatewayError): GatewayError {
    this.observer.rejected?.(reason);
    return error;
  }
}

function cancelledError(signal: AbortSignal | undefined): GatewayError {
  const reason: unknown = signal?.reason;
  return reason instanceof GatewayError ? reason : new GatewayError('cancelled', 'the request was cancelled by the client');
}
