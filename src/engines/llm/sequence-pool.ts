/**
 * Hands out the context's sequences one generation at a time. When none is free the caller
 * waits its turn (first come, first served), so node-llama-cpp's "No sequences left" never
 * reaches a caller. The gateway's limiter normally keeps callers within the number of
 * sequences; this is the second guard (e.g. an aborted call whose generation is still winding down).
 */
export class SequencePool<T> {
  private readonly free: T[];
  private readonly waiters: Array<{ resolve: (item: T) => void; reject: (error: unknown) => void; signal?: AbortSignal; onAbort: () => void }> = [];

  constructor(items: readonly T[]) {
    this.free = [...items];
  }

  get available(): number {
    return this.free.length;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** A free item, or the first one released after the callers already waiting got theirs. */
  acquire(signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const item = this.free.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise<T>((resolve, reject) => {
      const waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  release(item: T): void {
    const waiter = this.waiters.shift();
    if (!waiter) {
      this.free.push(item);
      return;
    }
    waiter.signal?.removeEventListener('abort', waiter.onAbort);
    waiter.resolve(item);
  }
}
