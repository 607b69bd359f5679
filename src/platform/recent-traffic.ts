const MINUTE_MS = 60_000;

interface MinuteBucket {
  requests: number;
  errors: number;
  errorKinds: Map<string, number>;
}

export interface TrafficSummary {
  windowMinutes: number;
  /** Oldest first; one entry per minute of the window, empty minutes included. */
  perMinute: Array<{ minute: string; requests: number; errors: number }>;
  /** Error kinds answered over the window, by count. */
  errorKinds: Record<string, number>;
}

/**
 * Requests and error kinds per minute over the last few minutes, for the operator's console.
 * Counts only: no operation input, no request id. Minutes that fall out of the window are dropped.
 */
export class RecentTraffic {
  private readonly buckets = new Map<number, MinuteBucket>();

  constructor(readonly windowMinutes = 15) {}

  record(errorKind: string | undefined, now = Date.now()): void {
    const minute = Math.floor(now / MINUTE_MS);
    let bucket = this.buckets.get(minute);
    if (!bucket) {
      bucket = { requests: 0, errors: 0, errorKinds: new Map() };
      this.buckets.set(minute, bucket);
      this.forgetBefore(minute - this.windowMinutes + 1);
    }
    bucket.requests += 1;
    if (errorKind) {
      bucket.errors += 1;
      bucket.errorKinds.set(errorKind, (bucket.errorKinds.get(errorKind) ?? 0) + 1);
    }
  }

  summary(now = Date.now()): TrafficSummary {
    const last = Math.floor(now / MINUTE_MS);
    const perMinute: TrafficSummary['perMinute'] = [];
    const errorKinds: Record<string, number> = {};
    for (let minute = last - this.windowMinutes + 1; minute <= last; minute += 1) {
      const bucket = this.buckets.get(minute);
      perMinute.push({ minute: new Date(minute * MINUTE_MS).toISOString(), requests: bucket?.requests ?? 0, errors: bucket?.errors ?? 0 });
      for (const [kind, count] of bucket?.errorKinds ?? []) errorKinds[kind] = (errorKinds[kind] ?? 0) + count;
    }
    return { windowMinutes: this.windowMinutes, perMinute, errorKinds };
  }

  private forgetBefore(minute: number): void {
    for (const key of this.buckets.keys()) if (key < minute) this.buckets.delete(key);
  }
}
