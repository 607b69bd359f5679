/**
 * A fixed number of workers, each used by one page at a time. A worker is replaced after
 * `maxJobs` pages (tesseract's WASM heap only grows) and after a page fails in it.
 *
 * A cancelled page is stopped in one of two ways, chosen by the kind of worker:
 * - `terminate`: the worker is terminated at once and the next page gets a fresh one
 *   (tesseract.js, pure WASM, has no other way to stop);
 * - `cooperative`: the worker is asked to stop through the signal its task was given, and its
 *   slot is free once it has (a worker thread that runs native code, as onnxruntime does, must
 *   never be terminated mid-run: the native callback then throws into a torn-down thread and
 *   aborts the whole process).
 * Either way the caller is answered at once.
 */
import { GatewayError } from '../../errors.js';

export interface PoolWorker {
  terminate(): Promise<unknown>;
}

export type Cancellation = 'terminate' | 'cooperative';

interface Slot<W> {
  worker: Promise<W> | undefined;
  jobs: number;
  /** Settles when the slot's page is done with its worker, cancelled or not. */
  busy: Promise<void> | undefined;
}

export class WorkerPool<W extends PoolWorker> {
  private readonly slots: Array<Slot<W>>;
  private readonly idle: Array<Slot<W>>;
  private readonly waiting: Array<(slot: Slot<W>) => void> = [];
  /** Aborted on close: cooperative pages in flight stop at their next step. */
  private readonly closing = new AbortController();
  private closed = false;

  constructor(
    private readonly create: () => Promise<W>,
    size: number,
    private readonly maxJobs: number,
    private readonly cancellation: Cancellation = 'terminate',
  ) {
    this.slots = Array.from({ length: size }, () => ({ worker: undefined, jobs: 0, busy: undefined }));
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

  /** Runs `task` on a worker of its own; `signal` is passed on, so a cooperative worker can stop. */
  async use<T>(signal: AbortSignal, task: (worker: W, signal: AbortSignal) => Promise<T>): Promise<T> {
    const slot = await this.acquire();
    const stop = this.cancellation === 'cooperative' ? AbortSignal.any([signal, this.closing.signal]) : signal;
    const work = this.workerOf(slot).then((worker) => {
      slot.jobs++;
      return task(worker, stop);
    });
    const answer = untilAborted(work, signal);
    // The slot is free again at once when its worker is terminated, once it has stopped otherwise.
    const terminates = this.cancellation === 'terminate';
    slot.busy = (terminates ? answer : work)
      .then(
        () => slot.jobs >= this.maxJobs,
        () => terminates || !signal.aborted, // a failed page may leave its worker broken; a stopped one leaves it idle
      )
      .then(async (retire) => {
        if (retire) await this.replace(slot);
        this.release(slot);
      });
    return answer;
  }

  /** Terminates every worker, once the pages in flight in cooperative ones have stopped (they are asked to). */
  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort(new GatewayError('engine_unavailable', 'the OCR engine is closing'));
    if (this.cancellation === 'cooperative') await Promise.all(this.slots.map((slot) => slot.busy));
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
