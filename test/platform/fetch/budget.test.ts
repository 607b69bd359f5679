import { describe, expect, it } from 'vitest';
import { ByteBudget } from '../../../src/platform/fetch/budget.js';

const never = new AbortController().signal;
const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('ByteBudget', () => {
  it('grants what fits at once and makes the rest wait until bytes are given back', async () => {
    const budget = new ByteBudget(10, 60_000);
    const releaseSix = await budget.reserve(6, never);
    const four = budget.reserve(4, never);
    expect(await settled(four)).toBe(true);
    const five = budget.reserve(5, never);
    expect([await settled(five), budget.heldBytes, budget.waitingCount]).toEqual([false, 10, 1]);
    releaseSix();
    releaseSix(); // a second call gives nothing back twice
    await five;
    expect(budget.heldBytes).toBe(9);
  });

  it('serves waiters in order of arrival: a small one does not overtake a large one', async () => {
    const budget = new ByteBudget(10, 60_000);
    const release = await budget.reserve(8, never);
    const large = budget.reserve(10, never);
    const small = budget.reserve(1, never);
    expect([await settled(large), await settled(small)]).toEqual([false, false]);
    release();
    expect([await settled(large), await settled(small)]).toEqual([true, false]);
    (await large)();
    await small;
    expect(budget.heldBytes).toBe(1);
  });

  it('lets one larger than the whole budget run alone', async () => {
    const budget = new ByteBudget(10, 60_000);
    const release = await budget.reserve(50, never);
    expect(budget.heldBytes).toBe(10);
    release();
    expect(budget.heldBytes).toBe(0);
  });

  it('refuses after the longest wait with a retryable overloaded error, and lets the next in line in', async () => {
    const budget = new ByteBudget(10, 50);
    const release = await budget.reserve(5, never);
    const blocked = budget.reserve(10, never);
    const behind = budget.reserve(5, never);
    await expect(blocked).rejects.toMatchObject({ kind: 'overloaded', retryable: true, retryAfterSeconds: 5 });
    await behind;
    expect([budget.heldBytes, budget.waitingCount]).toEqual([10, 0]);
    release();
  });

  it('stops waiting when the signal aborts, with its reason', async () => {
    const budget = new ByteBudget(10, 60_000);
    await budget.reserve(10, never);
    const controller = new AbortController();
    const waiting = budget.reserve(1, controller.signal);
    controller.abort(new Error('client gone'));
    await expect(waiting).rejects.toThrow('client gone');
    expect([budget.heldBytes, budget.waitingCount]).toEqual([10, 0]);
  });
});
