import { describe, expect, it } from 'vitest';
import { WorkerPool } from '../../../src/engines/ocr/pool.js';

class CountingWorker {
  terminated = false;
  constructor(readonly id: number) {}
  async terminate() {
    this.terminated = true;
  }
}

function pool(size: number, maxJobs: number) {
  const created: CountingWorker[] = [];
  const workers = new WorkerPool(async () => {
    const worker = new CountingWorker(created.length);
    created.push(worker);
    return worker;
  }, size, maxJobs);
  return { workers, created };
}

const live = new AbortController().signal;

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

  it('fails start when workers do not come up in time', async () => {
    const workers = new WorkerPool(() => new Promise<CountingWorker>(() => undefined), 1, 10);
    await expect(workers.start(20)).rejects.toThrow(/did not start within 20 ms/);
  });
});
