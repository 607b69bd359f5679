import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteAdviceJobStore } from '../../../src/platform/store/advice-jobs.js';
import { openDatabase } from '../../../src/platform/store/database.js';

let dataDir: string;
let db: Database.Database;
let store: SqliteAdviceJobStore;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'advice-store-'));
  db = openDatabase(dataDir);
  store = new SqliteAdviceJobStore(db);
});

afterEach(async () => {
  db.close();
  await rm(dataDir, { recursive: true, force: true });
});

const job = (requestId = 'r1', bodySha256 = 'a'.repeat(64)) => ({
  requestId,
  bodySha256,
  requestJson: '{"patient":"王某"}',
  webhookId: `msg_${requestId}`,
});

const columns = (requestId: string) =>
  db.prepare('SELECT request_json, callback_json FROM advice_jobs WHERE request_id = ?').get(requestId) as {
    request_json: string | null;
    callback_json: string | null;
  };

const SUCCEEDED = { outcome: 'succeeded' as const, callbackJson: '{"advice_draft":"草稿"}' };

describe('SqliteAdviceJobStore', () => {
  it('creates a job once; the same id again tells whether the body matched', async () => {
    expect(await store.submit(job(), 1)).toEqual({ created: true });
    expect(await store.submit(job(), 2)).toEqual({ created: false, sameBody: true });
    expect(await store.submit(job('r1', 'b'.repeat(64)), 3)).toEqual({ created: false, sameBody: false });
    expect((await store.countByState()).queued).toBe(1);
    expect((await store.find('r1'))!.events.map((e) => e.event)).toEqual(['accepted', 'resubmitted', 'conflicting_submission']);
  });

  it('hands out due drafts oldest first, and not before they are due', async () => {
    await store.submit(job('r1'), 10);
    await store.submit(job('r2'), 5);
    await store.retryDraft('r2', 100, 'overloaded', 6);
    expect((await store.claimDraft(50))!.requestId).toBe('r1');
    expect(await store.claimDraft(50)).toBeUndefined();
    expect(await store.claimDraft(100)).toMatchObject({ requestId: 'r2', attempt: 1, requestJson: '{"patient":"王某"}' });
  });

  it('queues again the drafts a crash interrupted, counting the attempt', async () => {
    await store.submit(job(), 1);
    await store.claimDraft(2);
    expect((await store.find('r1'))!.state).toBe('running');
    expect(await store.requeueInterrupted(3)).toBe(1);
    expect(await store.claimDraft(3)).toMatchObject({ attempt: 2 });
  });

  it('forgets the request text once drafted, and the callback body once delivered', async () => {
    await store.submit(job(), 1);
    await store.claimDraft(2);
    await store.finishDraft('r1', SUCCEEDED, 3);
    expect(columns('r1')).toEqual({ request_json: null, callback_json: SUCCEEDED.callbackJson });

    const delivery = await store.claimDelivery(4, 1_000);
    expect(delivery).toMatchObject({ webhookId: 'msg_r1', attempt: 1, firstDeliveryAt: 4, acceptedAt: 1 });
    await store.recordDelivery('r1', 'attempt 1: HTTP 200', { state: 'delivered' }, 5);
    expect(columns('r1')).toEqual({ request_json: null, callback_json: null });
    expect(await store.find('r1')).toMatchObject({ state: 'delivered', outcome: 'succeeded', nextRunAt: null });
  });

  it('does not hand out a delivery again while it is leased, and keeps the first attempt time', async () => {
    await store.submit(job(), 1);
    await store.claimDraft(1);
    await store.finishDraft('r1', SUCCEEDED, 2);
    await store.claimDelivery(10, 500);
    expect(await store.claimDelivery(20, 600)).toBeUndefined();
    await store.recordDelivery('r1', 'attempt 1: ECONNREFUSED', { state: 'delivering', retryAt: 700 }, 30);
    expect(await store.nextDueAt()).toEqual({ draft: undefined, delivery: 700 });
    expect(await store.claimDelivery(700, 2_000)).toMatchObject({ attempt: 2, firstDeliveryAt: 10 });
  });

  it('a delivery interrupted by a crash is due again once its lease ends', async () => {
    await store.submit(job(), 1);
    await store.claimDraft(1);
    await store.finishDraft('r1', SUCCEEDED, 2);
    await store.claimDelivery(10, 500);
    expect(await store.claimDelivery(500, 900)).toMatchObject({ attempt: 2 });
  });

  it('purges only finished jobs older than the cut-off, with their history', async () => {
    for (const id of ['done', 'dead', 'waiting']) await store.submit(job(id), 1);
    for (const id of ['done', 'dead']) {
      await store.claimDraft(1);
      await store.finishDraft(id, SUCCEEDED, 2);
      await store.claimDelivery(3, 4);
      await store.recordDelivery(id, 'x', { state: id === 'done' ? 'delivered' : 'dead' }, 5);
    }
    expect(await store.purgeFinished(6)).toBe(2);
    expect(await store.find('done')).toBeUndefined();
    expect((await store.find('waiting'))!.state).toBe('queued');
    expect(db.prepare("SELECT COUNT(*) FROM advice_job_events WHERE request_id = 'done'").pluck().get()).toBe(0);
  });
});
