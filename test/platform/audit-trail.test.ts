import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AuditTrail } from '../../src/platform/audit-trail.js';
import { createLogger } from '../../src/platform/logger.js';
import type { AuditRecord, AuditStore } from '../../src/platform/store/index.js';

const record = (requestId: string): AuditRecord => ({
  at: 1,
  caller: 'platform',
  operation: 'asr',
  method: 'POST',
  requestId,
  uploadFileIds: null,
  status: 200,
  errorKind: null,
  durationMs: 1,
});

/** A store that keeps what it is given in memory, and refuses every batch while `refusing`. */
class MemoryAuditStore implements AuditStore {
  readonly batches: string[][] = [];
  refusing = false;

  async append(records: readonly AuditRecord[]): Promise<void> {
    if (this.refusing) throw new Error('database unavailable');
    this.batches.push(records.map((one) => one.requestId!));
  }

  async *between(): AsyncGenerator<AuditRecord> {
    for (const id of this.batches.flat()) yield record(id);
  }

  async purgeBefore(): Promise<number> {
    return 0;
  }
}

function trailOn(store: AuditStore, options: ConstructorParameters<typeof AuditTrail>[2]) {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  return { trail: new AuditTrail(store, createLogger('info', sink), options), logs };
}

describe('AuditTrail', () => {
  it('writes nothing on the request path: records wait for the timer, then go in one batch', async () => {
    const store = new MemoryAuditStore();
    const { trail } = trailOn(store, { flushAfterMs: 30, batchSize: 100 });
    trail.record(record('a'));
    trail.record(record('b'));
    expect(store.batches).toEqual([]);
    await expect.poll(() => store.batches).toEqual([['a', 'b']]);
  });

  it('writes at once when a batch is full, without waiting for the timer, one batch at most per statement', async () => {
    const store = new MemoryAuditStore();
    const { trail } = trailOn(store, { flushAfterMs: 60_000, batchSize: 2 });
    for (const id of ['a', 'b', 'c']) trail.record(record(id));
    await expect.poll(() => store.batches).toEqual([['a', 'b'], ['c']]);
    await trail.close();
  });

  it('keeps the records the database refuses and writes them, in order, once it accepts again', async () => {
    const store = new MemoryAuditStore();
    const { trail, logs } = trailOn(store, { flushAfterMs: 20, batchSize: 2 });
    store.refusing = true;
    for (const id of ['a', 'b', 'c']) trail.record(record(id));
    await trail.flush();
    expect(logs.join('')).toContain('audit records could not be stored; kept to try again');
    trail.record(record('d'));
    store.refusing = false;
    await expect.poll(() => store.batches.flat()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('drops the oldest beyond what it may keep, and says how many', async () => {
    const store = new MemoryAuditStore();
    const { trail, logs } = trailOn(store, { flushAfterMs: 60_000, batchSize: 10, maxPending: 2 });
    store.refusing = true;
    for (const id of ['a', 'b', 'c']) trail.record(record(id));
    await trail.flush();
    expect(logs.join('')).toMatch(/"dropped":1.*audit records lost/);
    store.refusing = false;
    await trail.close();
    expect(store.batches.flat()).toEqual(['b', 'c']);
  });

  it('an export sees the records still queued', async () => {
    const store = new MemoryAuditStore();
    const { trail } = trailOn(store, { flushAfterMs: 60_000, batchSize: 100 });
    trail.record(record('queued'));
    const exported: AuditRecord[] = [];
    for await (const one of trail.between(0, 10)) exported.push(one);
    expect(exported.map((one) => one.requestId)).toEqual(['queued']);
  });
});
