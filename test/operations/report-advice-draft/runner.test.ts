import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { AdviceJobRunner } from '../../../src/operations/report-advice-draft/runner.js';
import { createLogger } from '../../../src/platform/logger.js';
import type { AdviceJobStore } from '../../../src/operations/report-advice-draft/job-store.js';
import { openGatewayStores } from '../../support/store-backends.js';
import { adviceRequest } from '../../support/advice-jobs.js';

let dataDir: string;
let stores: Awaited<ReturnType<typeof openGatewayStores>>;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'advice-runner-'));
  stores = await openGatewayStores(dataDir);
});
afterEach(async () => {
  await stores.close();
  await rm(dataDir, { recursive: true, force: true });
});

const runnerOn = (store: AdviceJobStore) =>
  new AdviceJobRunner(
    store,
    {
      draftConcurrency: 1,
      draftAttempts: 1,
      deliveryConcurrency: 1,
      draftLeaseMs: 30_000,
      deliveryLeaseMs: 30_000,
      retry: { baseDelayMs: 10, maxDelayMs: 10, horizonMs: 60_000 },
      retentionMs: 60_000,
    },
    {
      draft: async () => '建议新辅助治疗后评估手术。',
      processorVersion: () => ({ prompt: 'test', model: 'test' }),
      deliver: async () => ({ delivered: true, detail: 'HTTP 200' }),
      llmStarting: () => false,
    },
    createLogger('silent'),
  );

it('keeps looking for work after the store failed to answer (a networked store may be briefly unreachable)', async () => {
  const store = stores.adviceJobs;
  const body = JSON.stringify(adviceRequest('r1'));
  await store.submit({ requestId: 'r1', bodySha256: 'a', requestJson: body, webhookId: 'msg_r1' }, Date.now());
  let outage = true;
  const flaky: AdviceJobStore = Object.assign(Object.create(store) as AdviceJobStore, {
    claimDraft: (now: number, leaseUntil: number) =>
      outage ? Promise.reject(new Error('ECONNREFUSED')) : store.claimDraft(now, leaseUntil),
  });
  const runner = runnerOn(flaky);
  await runner.start();
  outage = false;
  await expect.poll(async () => (await store.find('r1'))?.state, { timeout: 10_000, interval: 100 }).toBe('delivered');
  await runner.close();
}, 15_000);
