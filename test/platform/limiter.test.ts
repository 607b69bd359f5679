import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors.js';
import { Limiter, type RejectReason } from '../../src/platform/limiter.js';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function limiter(maxRunning: number, maxQueued: number, queueTimeoutMs = 10_000) {
  const rejected: RejectReason[] = [];
  const waits: number[] = [];
  const instance = new Limiter('test', { maxRunning, maxQueued, queueTimeoutMs }, {
    rejected: (reason) => rejected.push(reason),
    queueWait: (seconds) => waits.push(seconds),
  });
  return { instance, rejected, waits };
}

const errorOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as GatewayError);

describe('Limiter', () => {
  it('runs at most maxRunning tasks and starts queued ones in arrival order', async () => {
    const { instance, waits } = limiter(2, 10);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, index) =>
      instance.run(async () => {
        started.push(index);
        await gate.promise;
        return index;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect([instance.running, instance.queued]).toEqual([2, 2]);
    gates[1]!.resolve();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.resolve();
    gates[2]!.resolve();
    gates[3]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect([instance.running, instance.queued]).toEqual([0, 0]);
    expect(waits).toHaveLength(2);
  });

  it('refuses with overloaded and a Retry-After estimate when the queue is full', async () => {
    const { instance, rejected } = limiter(1, 1);
    const gate = deferred();
    const running = instance.run(() => gate.promise);
    const queued = instance.run(async () => 'queued');
    const error = await errorOf(instance.run(async () => 'refused'));
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ kind: 'overloaded', status: 503, retryable: true });
    expect(error!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(rejected).toEqual(['overloaded']);
    gate.resolve();
    await running;
    expect(await queued).toBe('queued');
  });

  it('maxQueued 0 means no queue at all', async () => {
    const { instance } = limiter(1, 0);
    const gate = deferred();
    const running = instance.run(() => gate.promise);
    expect(await errorOf(instance.run(async () => 1))).toMatchObject({ kind: 'overloaded' });
    gate.resolve();
    await running;
  });

  it('a task waiting past the queue deadline fails with timeout and never runs', async () => {
    const { instance, rejected } = limiter(1, 5, 30);
    const gate = deferred();
    const running = instance.run(() => gate.promise);
    let ran = false;
    const error = await errorOf(instance.run(async () => (ran = true)));
    expect(error).toMatchObject({ kind: 'timeout', status: 504, retryable: true });
    expect(instance.queued).toBe(0);
    gate.resolve();
    await running;
    expect(ran).toBe(false);
    expect(rejected).toEqual(['timeout']);
  });

  it('an aborted queued task is dropped and never runs', async () => {
    const { instance, rejected } = limiter(1, 5);
    const gate = deferred();
    const running = instance.run(() => gate.promise);
    const client = new AbortController();
    let ran = false;
    const queued = errorOf(instance.run(async () => (ran = true), client.signal));
    client.abort();
    expect(await queued).toMatchObject({ kind: 'cancelled' });
    expect(instance.queued).toBe(0);
    gate.resolve();
    await running;
    expect(ran).toBe(false);
    expect(rejected).toEqual(['cancelled']);
  });

  it('a running task receives the abort signal of its caller', async () => {
    const { instance } = limiter(1, 0);
    const client = new AbortController();
    const result = errorOf(
      instance.run(
        (signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
        client.signal,
      ),
    );
    client.abort(new GatewayError('cancelled', 'client left'));
    expect(await result).toMatchObject({ kind: 'cancelled', message: 'client left' });
    expect(instance.running).toBe(0);
  });

  it('an already aborted caller never starts', async () => {
    const { instance } = limiter(1, 0);
    const error = await errorOf(instance.run(async () => 1, AbortSignal.abort()));
    expect(error).toMatchObject({ kind: 'cancelled' });
    expect(instance.running).toBe(0);
  });

  it('a failing task frees its slot', async () => {
    const { instance } = limiter(1, 0);
    await expect(instance.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await instance.run(async () => 'next')).toBe('next');
  });
});
