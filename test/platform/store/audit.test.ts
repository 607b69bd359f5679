import { beforeEach, expect, it } from 'vitest';
import type { AuditRecord, AuditStore } from '../../../src/platform/store/audit.js';
import { describeOnEachBackend, type OpenedStores } from '../../support/store-backends.js';

const record = (at: number, change: Partial<AuditRecord> = {}): AuditRecord => ({
  at,
  caller: 'platform',
  operation: 'case-ocr',
  method: 'POST',
  requestId: `req-${at}`,
  uploadFileIds: [3, 1],
  status: 200,
  errorKind: null,
  durationMs: 42,
  ...change,
});

const collect = async (records: AsyncIterable<AuditRecord>) => {
  const all: AuditRecord[] = [];
  for await (const one of records) all.push(one);
  return all;
};

describeOnEachBackend('AuditStore', (current) => {
  let opened: OpenedStores;
  let store: AuditStore;

  beforeEach(() => {
    opened = current();
    store = opened.stores.audit;
  });

  it('round-trips every field, nulls included', async () => {
    const failed = record(2000, { caller: null, requestId: null, uploadFileIds: null, status: 503, errorKind: 'engine_unavailable' });
    await store.append([record(1000), failed]);
    expect(await collect(store.between(0, 3000))).toEqual([record(1000), failed]);
  });

  it('reads [since, until) in arrival order, page after page, records of the same millisecond included', async () => {
    // Appended out of order, with several records per millisecond: the order is (time, insertion).
    const times = [5, 3, 3, 9, 3, 7, 1, 5, 8, 3, 10];
    await store.append(times.map((at, index) => record(at, { requestId: `req-${index}` })));
    const expected = times
      .map((at, index) => ({ at, index }))
      .filter(({ at }) => at >= 3 && at < 10)
      .sort((a, b) => a.at - b.at || a.index - b.index)
      .map(({ index }) => `req-${index}`);
    for (const pageSize of [1, 2, 3, 100]) {
      const read = await collect(store.between(3, 10, pageSize));
      expect(read.map((one) => one.requestId), `page size ${pageSize}`).toEqual(expected);
    }
  });

  it('appends nothing for an empty batch', async () => {
    await store.append([]);
    expect(await opened.rows('SELECT id FROM audit_records')).toHaveLength(0);
  });

  it('purges the records of requests that arrived before a time, and only those', async () => {
    await store.append([record(100), record(199), record(200), record(300)]);
    expect(await store.purgeBefore(200)).toBe(2);
    expect((await collect(store.between(0, 1000))).map((one) => one.at)).toEqual([200, 300]);
  });
});
