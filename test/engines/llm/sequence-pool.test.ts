import { describe, expect, it } from 'vitest';
import { SequencePool } from '../../../src/engines/llm/sequence-pool.js';

describe('sequence pool', () => {
  it('hands out free items, then serves waiters first come, first served', async () => {
    const pool = new SequencePool(['a', 'b']);
    expect(await pool.acquire()).toBe('a');
    expect(await pool.acquire()).toBe('b');
    const order: string[] = [];
    const first = pool.acquire().then((item) => order.push(`1:${item}`));
    const second = pool.acquire().then((item) => order.push(`2:${item}`));
    expect(pool.waiting).toBe(2);
    pool.release('b');
    pool.release('a');
    await Promise.all([first, second]);
    expect(order).toEqual(['1:b', '2:a']);
    expect(pool.available).toBe(0);
  });

  it('drops a waiter whose signal aborts, rejecting with the reason', async () => {
    const pool = new SequencePool(['a']);
    await pool.acquire();
    const controller = new AbortController();
    const waiting = pool.acquire(controller.signal);
    const next = pool.acquire();
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    pool.release('a');
    expect(await next).toBe('a');
    await expect(pool.acquire(AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });
});
