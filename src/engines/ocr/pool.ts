/**
 * A fixed number of tesseract.js workers, each used by one page at a time. A worker is replaced
 * after `maxJobs` pages (its WASM heap only grows) and when a page is cancelled mid-run
 * (terminating is the only way to stop tesseract), so cancelled work frees its core at once.
 */
import { GatewayError } from '../../errors.js';

export interface PoolWorker {
  terminate(): Promise<unknown>;
}

interface Slot<W> {
  worker: Promise<W> | undefined;
  jobs: number;
}

export class WorkerPool<W extends PoolWorker> {
  private readonly slots: Array<Slot<W>>;
  private readonly idle: Array<Slot<W>>;
  private readonly waiting: Array<(slot: Slot<W>) => void> = [];
  private closed = false;

  constructor(
    private readonly create: () => Promise<W>,
    size: number,
    private readonly maxJobs: number,
  ) {
    this.slots = Array.from({ length: size }, () => ({ worker: undefined, jobs: 0 }));
    this.idle = [...this.slots];
  }

  get size(): number {
    return this.slots.length;
  }

  /** Starts every worker; rejects when any fails to start within `timeoutMs`. */
  async start(timeoutMs: number): Promise<void> {
    const started = Promise.all(this.slots.map((slot) => this.workerOf(slot)));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`OCR workers did not start within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([started, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async use<T>(signal: AbortSignal, task: (worker: W) => Promise<T>): Promise<T> {
    const slot = await this.acquire();
    try {
      const worker = await this.workerOf(slot);
      slot.jobs++;
      const result = await untilAborted(task(worker), signal);
      if (slot.jobs >= this.maxJobs) this.replace(slot);
      return result;
    } catch (error) {
      this.replace(slot); // a failed or cancelled job may leave the worker busy or broken
      throw error;
    } finally {
      this.release(slot);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled(this.slots.map((slot) => this.replace(slot)));
  }

  private workerOf(slot: Slot<W>): Promise<W> {
    if (this.closed) return Promise.reject(new GatewayError('engine_unavailable', 'the OCR engine is closed'));
    slot.worker ??= this.create();
    const worker = slot.worker;
    worker.catch(() => {
      if (slot.worker === worker) slot.worker = undefined; // the next use tries again
    });
    return worker;
  }

  /** Terminates the slot's worker; the next use of the slot starts a fresh one. */
  private async replace(slot: Slot<W>): Promise<void> {
    const old = slot.worker;
    slot.worker = undefined;
    slot.jobs = 0;
    if (old) await old.then((worker) => worker.terminate()).catch(() => undefined);
  }

  private acquire(): Promise<Slot<W>> {
    const slot = this.idle.pop();
    if (slot) return Promise.resolve(slot);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(slot: Slot<W>): void {
    const next = this.waiting.shift();
    if (next) next(slot);
    else this.idle.push(slot);
  }
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
