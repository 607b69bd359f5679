import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { AdviceRunnerHooks } from './runner.js';

/** AI-3's series: drafts, callback attempts, time to callback, and jobs per state read from the store at each scrape. */
export function adviceMetrics(registry: Registry, countByState: () => Promise<Record<string, number>>): NonNullable<AdviceRunnerHooks['observe']> {
  const drafts = new Histogram({
    name: 'gateway_advice_draft_duration_seconds',
    help: 'Time to draft one AI-3 job, by outcome (succeeded, failed)',
    labelNames: ['outcome'] as const,
    buckets: [1, 5, 10, 30, 60, 120, 300, 600],
    registers: [registry],
  });
  const callbackAttempts = new Counter({
    name: 'gateway_advice_callback_attempts_total',
    help: 'AI-3 callback POSTs by result: delivered (2xx) or failed (network error, timeout, other status)',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const finished = new Histogram({
    name: 'gateway_advice_time_to_callback_seconds',
    help: 'From acceptance to the end of delivery, by final state (delivered, dead)',
    labelNames: ['state'] as const,
    buckets: [1, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400],
    registers: [registry],
  });
  // `dead` stays visible until the job is purged.
  new Gauge({
    name: 'gateway_advice_jobs',
    help: 'AI-3 jobs in the store by state; absent while the store cannot be read',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      // While the database is unreachable the other series still matter most: these are left out, not stale.
      const counts = await countByState().catch(() => undefined);
      this.reset();
      for (const [state, count] of Object.entries(counts ?? {})) this.set({ state }, count);
    },
  });
  return {
    drafted: (outcome, seconds) => drafts.observe({ outcome }, seconds),
    delivery: (delivered) => callbackAttempts.inc({ result: delivered ? 'delivered' : 'failed' }),
    finished: (state, seconds) => finished.observe({ state }, seconds),
  };
}
