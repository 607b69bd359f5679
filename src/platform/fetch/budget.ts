import { GatewayError } from '../../errors.js';

/** Gives reserved bytes back; calling it again does nothing. */
export type Release = () => void;

/** What a download holds while it streams in: reserved before its body is read, given back when the body is read whole (or the download fails). */
export interface DownloadBudget {
  reserve(bytes: number, signal: AbortSignal): Promise<Release>;
}

interface Waiter {
  bytes: number;
  grant: () => void;
}

/** Seconds a download refused for want of room suggests waiting: downloads on a hospital LAN take seconds. */
const RETRY_AFTER_SECONDS = 5;

/**
 * The bytes downloads in flight may hold at once (`FETCH_MAX_IN_FLIGHT_BYTES`), in memory or in
 * `TMPDIR` (a RAM tmpfs in the container). A download reserves its declared size, or its
 * maximum when none is declared, before its body is read; downloads wait their turn in order
 * of arrival, at most `maxWaitMs`, then are refused `503 overloaded`. A download larger than the
 * whole budget waits until it can hold the whole budget alone.
 */
export class ByteBudget implements DownloadBudget {
  private held = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly capacity: number,
    private readonly maxWaitMs: number,
  ) {}

  /** Bytes reserved now. */
  get heldBytes(): number {
    return this.held;
  }

  /** Downloads waiting for room now. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  async reserve(bytes: number, signal: AbortSignal): Promise<Release> {
    const reserved = Math.min(bytes, this.capacity);
    if (this.waiting.length === 0 && this.held + reserved <= this.capacity) this.held += reserved;
    else await this.waitForRoom(reserved, signal); // counted as held when granted
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= reserved;
      this.grantInOrder();
    };
  }

  private waitForRoom(bytes: number, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      const give = (error: unknown) => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.grantInOrder(); // the next in line may fit where this one did not
        reject(error);
      };
      const onAbort = () => give(signal.reason);
      const timer = setTimeout(
        () =>
          give(
            new GatewayError('overloaded', 'the gateway is downloading as much as FETCH_MAX_IN_FLIGHT_BYTES allows; try again later', {
              retryAfterSeconds: RETRY_AFTER_SECONDS,
            }),
          ),
        this.maxWaitMs,
      );
      const waiter: Waiter = {
        bytes,
        grant: () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Lets waiters in, first come first served, while the first in line fits. */
  private grantInOrder(): void {
    while (this.waiting.length > 0 && this.held + this.waiting[0]!.bytes <= this.capacity) {
      const next = this.waiting.shift()!;
      this.held += next.bytes;
      next.grant();
    }
  }
}
