/**
 * The LLM calls waiting for the child's answer, by id. A call ends exactly once: with the
 * child's answer, the caller's abort, its deadline, or the child's death. An abandoned call
 * tells the child to stop generating, which frees its sequence for the next call.
 */
import { GatewayError } from '../../errors.js';
import type { ChildMessage } from './protocol.js';

const MAX_TIMER_MS = 2 ** 31 - 1;

export interface CallDeadline {
  /** Epoch ms after which the call fails with `timeout`. */
  at: number;
  message: string;
}

interface PendingCall {
  resolve(message: ChildMessage): void;
  reject(error: unknown): void;
}

export class PendingCalls {
  private readonly calls = new Map<number, PendingCall>();
  private nextId = 1;

  get size(): number {
    return this.calls.size;
  }

  /**
   * Registers a call and hands its id to `send`; `abandon(id)` is told when the caller stops
   * waiting (abort, deadline) so the child can stop working on it.
   */
  open(signal: AbortSignal, deadline: CallDeadline, send: (id: number) => void, abandon: (id: number) => void): Promise<ChildMessage> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (deadline.at <= Date.now()) return Promise.reject(new GatewayError('timeout', deadline.message));
    const id = this.nextId++;
    return new Promise<ChildMessage>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.calls.delete(id);
      };
      const giveUp = (error: unknown) => {
        finish();
        abandon(id);
        reject(error);
      };
      const onAbort = () => giveUp(signal.reason);
      const timer = setTimeout(
        () => giveUp(new GatewayError('timeout', deadline.message)),
        Math.min(MAX_TIMER_MS, Math.max(0, deadline.at - Date.now())),
      );
      signal.addEventListener('abort', onAbort, { once: true });
      this.calls.set(id, {
        resolve: (answer) => {
          finish();
          resolve(answer);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
      send(id);
    });
  }

  /** False when nobody waits for `id` any more (it was aborted or timed out). */
  has(id: number): boolean {
    return this.calls.has(id);
  }

  resolve(id: number, message: ChildMessage): void {
    this.calls.get(id)?.resolve(message);
  }

  reject(id: number, error: unknown): void {
    this.calls.get(id)?.reject(error);
  }

  rejectAll(error: unknown): void {
    for (const call of [...this.calls.values()]) call.reject(error);
  }
}
