import { describe, expect, it } from 'vitest';
import { nextAttempt } from '../../../src/platform/callbacks/delivery.js';

describe('nextAttempt', () => {
  const policy = { baseDelayMs: 1_000, maxDelayMs: 60_000, horizonMs: 3_600_000 };

  it('doubles the delay each attempt, with jitter between half and all of it', () => {
    expect(nextAttempt(1, 0, 0, policy, () => 0)).toEqual({ retryAt: 500 });
    expect(nextAttempt(1, 0, 0, policy, () => 1)).toEqual({ retryAt: 1_000 });
    expect(nextAttempt(4, 0, 0, policy, () => 1)).toEqual({ retryAt: 8_000 });
  });

  it('caps the delay', () => {
    expect(nextAttempt(30, 0, 0, policy, () => 1)).toEqual({ retryAt: 60_000 });
    expect(nextAttempt(5_000, 0, 0, policy, () => 1)).toEqual({ retryAt: 60_000 });
  });

  it('makes a last attempt exactly at the horizon, then gives up', () => {
    expect(nextAttempt(20, 0, 3_590_000, policy, () => 1)).toEqual({ retryAt: 3_600_000 });
    expect(nextAttempt(21, 0, 3_600_000, policy, () => 1)).toEqual({ giveUp: true });
  });
});
