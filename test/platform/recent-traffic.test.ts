import { describe, expect, it } from 'vitest';
import { RecentTraffic } from '../../src/platform/recent-traffic.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 1, 8, 0, 0);

describe('RecentTraffic', () => {
  it('counts requests, errors and error kinds per minute over its window, empty minutes included', () => {
    const traffic = new RecentTraffic(3);
    traffic.record(undefined, T0);
    traffic.record('overloaded', T0 + 10_000);
    traffic.record(undefined, T0 + 2 * MINUTE);
    traffic.record('overloaded', T0 + 2 * MINUTE + 1);
    traffic.record('timeout', T0 + 2 * MINUTE + 2);

    expect(traffic.summary(T0 + 2 * MINUTE + 5)).toEqual({
      windowMinutes: 3,
      perMinute: [
        { minute: '2026-01-01T08:00:00.000Z', requests: 2, errors: 1 },
        { minute: '2026-01-01T08:01:00.000Z', requests: 0, errors: 0 },
        { minute: '2026-01-01T08:02:00.000Z', requests: 3, errors: 2 },
      ],
      errorKinds: { overloaded: 2, timeout: 1 },
    });
  });

  it('drops what falls out of the window', () => {
    const traffic = new RecentTraffic(2);
    traffic.record('overloaded', T0);
    traffic.record(undefined, T0 + 5 * MINUTE);
    const { perMinute, errorKinds } = traffic.summary(T0 + 5 * MINUTE);
    expect(perMinute.map((m) => m.requests)).toEqual([0, 1]);
    expect(errorKinds).toEqual({});
  });
});
