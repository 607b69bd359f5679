import { beforeEach, expect, it } from 'vitest';
import type { AdviceJobStore } from '../../../src/operations/report-advice-draft/job-store.js';
import { describeOnEachBackend, type OpenedStores } from '../../support/store-backends.js';

const job = (requestId = 'r1', bodySha256 = 'a'.repeat(64)) => ({
  requestId,
  bodySha256,
  requestJson: '{"patient":"王某"}',
  webhookId: `msg_${requestId}`,
});

const SUCCEEDED = { outcome: 'succeeded' as const, callbackJson: '{"advice_draft":"草稿"}' };
const LEASE = 1_000_000;

describeOnEachBackend('AdviceJobStore', (current) => {
  let opened: OpenedStores;
  let store: AdviceJobStore;

  beforeEach(() => {
    opened = current();
    store = opened.adviceJobs;
  });

  const columns = async (requestId: string) =>
    (await opened.rows(`SELECT request_json, callback_json FROM advice_jobs WHERE request_id = '${requestId}'`))[0];

  /** Claims the next due draft and finishes it. */
  async function draft(now: number) {
    const claim = (await store.claimDraft(now, now + LEASE))!;
    expect(await store.finishDraft(claim, SUCCEEDED, now)).toBe(true);
    return claim;
  }

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
    const first = (await store.claimDraft(5, 5 + LEASE))!;
    expect(first.requestId).toBe('r2');
    await store.retryDraft(first, 100, 'overloaded', 6);
    expect((await store.claimDraft(50, 50 + LEASE))!.requestId).toBe('r1');
    expect(await store.claimDraft(50, 50 + LEASE)).toBeUndefined();
    expect(await store.claimDraft(100, 100 + LEASE)).toMatchObject({ requestId: 'r2', attempt: 2, requestJson: '{"patient":"王某"}' });
  });

  it('queues again the drafts a crash interrupted, counting the attempt', async () => {
    await store.submit(job(), 1);
    await store.claimDraft(2, 10);
    expect((await store.find('r1'))!.state).toBe('running');
    expect(await store.requeueInterrupted(10)).toBe(1);
    expect(await store.claimDraft(10, 20)).toMatchObject({ attempt: 2 });
  });

  it('records nothing for a claim that was lost: its attempt is no longer the current one', async () => {
    await store.submit(job(), 1);
    const lost = (await store.claimDraft(2, 10))!;
    await store.requeueInterrupted(10);
    const current = (await store.claimDraft(10, 100))!;
    expect(await store.renewDraft(lost, 200)).toBe(false);
    expect(await store.retryDraft(lost, 50, 'timeout', 11)).toBe(false);
    expect(await store.finishDraft(lost, SUCCEEDED, 12)).toBe(false);
    expect(await store.renewDraft(current, 200)).toBe(true);
    expect(await store.finishDraft(current, SUCCEEDED, 13)).toBe(true);
    expect((await store.find('r1'))!.events.filter((e) => e.event === 'drafted')).toHaveLength(1);
  });

  it('forgets the request text once drafted, and the callback body once delivered', async () => {
    await store.submit(job(), 1);
    const claim = (await store.claimDraft(2, 2 + LEASE))!;
    await store.finishDraft(claim, SUCCEEDED, 3);
    expect(await columns('r1')).toEqual({ request_json: null, callback_json: SUCCEEDED.callbackJson });

    const delivery = (await store.claimDelivery(4, 1_000))!;
    expect(delivery).toMatchObject({ webhookId: 'msg_r1', attempt: 1, firstDeliveryAt: 4, acceptedAt: 1 });
    expect(await store.recordDelivery(delivery, 'attempt 1: HTTP 200', { state: 'delivered' }, 5)).toBe(true);
    expect(await columns('r1')).toEqual({ request_json: null, callback_json: null });
    expect(await store.find('r1')).toMatchObject({ state: 'delivered', outcome: 'succeeded', nextRunAt: null });
  });

  it('does not hand out a delivery again while it is leased, and keeps the first attempt time', async () => {
    await store.submit(job(), 1);
    await draft(1);
    const first = (await store.claimDelivery(10, 500))!;
    expect(await store.claimDelivery(20, 600)).toBeUndefined();
    await store.recordDelivery(first, 'attempt 1: ECONNREFUSED', { state: 'delivering', retryAt: 700 }, 30);
    expect(await store.nextDueAt()).toEqual({ draft: undefined, delivery: 700 });
    expect(await store.claimDelivery(700, 2_000)).toMatchObject({ attempt: 2, firstDeliveryAt: 10 });
  });

  it('a delivery interrupted by a crash is due again once its lease ends; the old claim records nothing', async () => {
    await store.submit(job(), 1);
    await draft(1);
    const interrupted = (await store.claimDelivery(10, 500))!;
    const again = (await store.claimDelivery(500, 900))!;
    expect(again).toMatchObject({ attempt: 2, webhookId: interrupted.webhookId });
    expect(await store.recordDelivery(interrupted, 'attempt 1: HTTP 200', { state: 'delivered' }, 600)).toBe(false);
    expect(await store.recordDelivery(again, 'attempt 2: HTTP 200', { state: 'delivered' }, 601)).toBe(true);
  });

  it('redelivers only a dead job, with the same webhook-id and a fresh first attempt, and lists jobs changed last first', async () => {
    await store.submit(job('r1'), 1);
    await store.submit(job('r2'), 2);
    await draft(3);
    expect(await store.redeliver('r1', 4)).toBe(false); // drafted, not dead
    const delivery = (await store.claimDelivery(5, 6))!;
    await store.recordDelivery(delivery, 'attempt 1: HTTP 503', { state: 'dead' }, 7);
    expect(await store.redeliver('unknown', 8)).toBe(false);
    expect(await store.redeliver('r1', 8)).toBe(true);
    expect(await store.redeliver('r1', 9)).toBe(false); // delivering again, no longer dead
    expect(await store.claimDelivery(10, 20)).toMatchObject({ requestId: 'r1', webhookId: 'msg_r1', firstDeliveryAt: 10 });
    expect((await store.find('r1'))!.events.map((e) => e.event)).toContain('redelivery_requested');
    expect((await store.recent(5)).map((view) => view.requestId)).toEqual(['r1', 'r2']);
    expect(await store.recent(1)).toHaveLength(1);
  });

  it('purges only finished jobs older than the cut-off, with their history', async () => {
    for (const id of ['done', 'dead']) await store.submit(job(id), 1);
    await store.submit(job('waiting'), 50);
    for (const state of ['delivered', 'dead'] as const) {
      await draft(1);
      const delivery = (await store.claimDelivery(3, 4))!;
      await store.recordDelivery(delivery, 'x', { state }, 5);
    }
    expect(await store.purgeFinished(6)).toBe(2);
    expect(await store.find('done')).toBeUndefined();
    expect((await store.find('waiting'))!.state).toBe('queued');
    const events = await opened.rows<{ n: number }>(
      "SELECT CAST(COUNT(*) AS INTEGER) AS n FROM advice_job_events WHERE request_id IN ('done', 'dead')",
    );
    expect(events[0]!.n).toBe(0);
  });
});
