/**
 * AI-3: a job is stored before it is acknowledged (202), drafted by the LLM in the background
 * and delivered by a signed callback POST; jobs.ts holds the service, runner.ts the loop,
 * job-store.ts the state machine in the database.
 */
import { OPERATIONS } from '../../contract/operations.js';
import type { Operation } from '../operation.js';
import { ADVICE_JOB_MIGRATIONS, SqlAdviceJobStore } from './job-store.js';
import { createAdviceJobs } from './jobs.js';
import { adviceMetrics } from './metrics.js';

export const reportAdviceDraftOperation: Operation<typeof OPERATIONS.reportAdviceDraft.request> = {
  contract: OPERATIONS.reportAdviceDraft,
  migrations: ADVICE_JOB_MIGRATIONS,
  start: async ({ config, engines, stores, logger, metrics }) => {
    const store = new SqlAdviceJobStore(stores.database);
    const jobs = createAdviceJobs({ config, engines, store, logger, observe: adviceMetrics(metrics, () => store.countByState()) });
    await jobs.start();
    return { handle: (request) => jobs.accept(request), jobs, close: () => jobs.close() };
  },
};
