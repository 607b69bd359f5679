import { describe, expect, it } from 'vitest';
import { WorkerPool, type Cancellation } from '../../../src/engines/ocr/pool.js';

class CountingWorker {
  terminated = false;
  constructor(readonly id: number) {}
  async terminate() {
    this.terminated = true;
  }
}

function pool(size: number, maxJobs: number, cancellation: Cancellation = 'terminate') {
  const created: CountingWorker[] = [];
  const workers = new WorkerPool(
    async () => {
      const worker = new CountingWorker(created.length);
      created.push(worker);
      return worker;
    },
    size,
    maxJobs,
    cancellation,
  );
  return { workers, created };
}

/** A page that runs until its signal aborts, then takes `stopMs` to stop. */
const stoppingPage = (stopMs: number) => (_worker: CountingWorker, signal: AbortSignal) =>
  new Promise<number>((_, reject) => signal.addEventListener('abort', () => setTimeout(() => reject(signal.reason), stopMs), { once: true }));

const live = new AbortController().signal;

/** A promise the test resolves when it chooses. */
function opening(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('OCR worker pool', () => {
  it('replaces a worker after maxJobs pages and terminates the old one', async () => {
    const { workers, created } = pool(1, 2);
    await workers.start(1000);
    const used: number[] = [];
    for (let i = 0; i < 5; i++) used.push(await workers.use(live, async (worker) => worker.id));
    expect(used).toEqual([0, 0, 1, 1, 2]);
    expect(created.slice(0, 2).every((worker) => worker.terminated)).toBe(true);
    await workers.close();
    expect(created.every((worker) => worker.terminated)).toBe(true);
  });

  it('keeps a worker for good when it has no page limit (PP-OCR\'s)', async () => {
    const { workers, created } = pool(1, Number.POSITIVE_INFINITY, 'cooperative');
    await workers.start(1000);
    for (let i = 0; i < 1000; i++) await workers.use(live, async () => undefined);
    expect(created).toHaveLength(1);
    expect(created[0]!.terminated).toBe(false);
    await workers.close();
  });

  it('runs at most `size` pages at once', async () => {
    const { workers } = pool(2, 100);
    let running = 0;
    let most = 0;
    const page = () =>
      workers.use(live, async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
      });
    await Promise.all(Array.from({ length: 6 }, page));
    expect(most).toBe(2);
    await workers.close();
  });

  it('terminates the worker of a cancelled page at once and serves the next page with a fresh one', async () => {
    const { workers, created } = pool(1, 100);
    const controller = new AbortController();
    const stuck = workers.use(controller.signal, () => new Promise<number>(() => undefined));
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('client went away'));
    await expect(stuck).rejects.toThrow('client went away');
    expect(created[0]!.terminated).toBe(true);
    expect(await workers.use(live, async (worker) => worker.id)).toBe(1);
    await workers.close();
  });

  it('answers a cancelled page at once, but gives its cooperative worker to the next page only once it has stopped, without terminating it', async () => {
    const { workers, created } = pool(1, 100, 'cooperative');
    const events: string[] = [];
    const started = opening();
    const stop = opening();
    const controller = new AbortController();
    // The cancelled page stops only when the test says so: it is still running when its caller is answered.
    const cancelled = workers.use(controller.signal, (_worker, signal) => {
      started.open();
      return new Promise<number>((_, reject) =>
        signal.addEventListener('abort', () => void stop.opened.then(() => (events.push('page stopped'), reject(signal.reason))), { once: true }),
      );
    });
    await started.opened;
    controller.abort(new Error('client went away'));
    await expect(cancelled).rejects.toThrow('client went away');
    events.push('caller answered');
    const next = workers.use(live, async (worker) => (events.push('next page ran'), worker.id));
    // Every promise the pool settled meanwhile has run its callbacks (it waits on nothing else):
    // a worker handed on too early has now run the next page.
    await new Promise((resolve) => setImmediate(resolve));
    stop.open();
    expect(await next).toBe(0);
    expect(events).toEqual(['caller answered', 'page stopped', 'next page ran']);
    expect(created[0]!.terminated).toBe(false);
    await workers.close();
  });

  it('replaces a cooperative worker whose page failed on its own', async () => {
    const { workers, created } = pool(1, 100, 'cooperative');
    await expect(workers.use(live, async () => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
    expect(await workers.use(live, async (worker) => worker.id)).toBe(1);
    expect(created[0]!.terminated).toBe(true);
    await workers.close();
  });

  it('closing asks the cooperative pages in flight to stop, and terminates their workers only once they have', async () => {
    const { workers, created } = pool(1, 100, 'cooperative');
    let pageStopped = false;
    const page = workers.use(live, (worker, signal) => stoppingPage(40)(worker, signal).finally(() => (pageStopped = true)));
    const answer = expect(page).rejects.toMatchObject({ kind: 'engine_unavailable' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    let stoppedBeforeTermination = false;
    created[0]!.terminate = async () => {
      stoppedBeforeTermination = pageStopped;
    };
    await workers.close();
    expect(stoppedBeforeTermination).toBe(true);
    await answer;
  });

  it('fails start when workers do not come up in time', async () => {
    const workers = new WorkerPool(() => new Promise<CountingWorker>(() => undefined), 1, 10);
    await expect(workers.start(20)).rejects.toThrow(/did not start within 20 ms/);
  });
});
