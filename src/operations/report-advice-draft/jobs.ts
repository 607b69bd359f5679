import { createHash, randomUUID } from 'node:crypto';
import {
  CALLBACK_PATH,
  type AdviceJobState,
  type AdviceJobStatus,
  type ReportAdviceDraftRequest,
  type ReportAdviceDraftResponse,
} from '../../contract/advice.js';
import type { Config } from '../../config/index.js';
import type { Engines } from '../../engines/registry.js';
import { GatewayError } from '../../errors.js';
import { postCallback } from './callbacks/delivery.js';
import type { Logger } from '../../platform/logger.js';
import type { AdviceJobStore, AdviceJobView } from './job-store.js';
import { llmCalls } from '../llm-calls.js';
import { draftAdvice } from './draft.js';
import { ADVICE_PROMPT_VERSION } from './prompts.js';
import { AdviceJobRunner, type AdviceRunnerHooks } from './runner.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface AdviceJobs {
  /** Persists the job, then answers; the same request again is the same job. */
  accept(request: ReportAdviceDraftRequest): Promise<ReportAdviceDraftResponse>;
  status(requestId: string): Promise<AdviceJobStatus>;
  /** Delivers a dead job's callback again, with a fresh retry horizon; its status after. */
  redeliver(requestId: string): Promise<AdviceJobStatus>;
  /** The jobs changed last, newest first, as operators see them. */
  recent(limit: number): Promise<AdviceJobStatus[]>;
  countByState(): Promise<Record<AdviceJobState, number>>;
  start(): Promise<void>;
  close(): Promise<void>;
}

interface Dependencies {
  config: Config;
  engines: Engines;
  store: AdviceJobStore;
  logger: Logger;
  observe?: AdviceRunnerHooks['observe'];
}

export function createAdviceJobs({ config, engines, store, logger, observe }: Dependencies): AdviceJobs {
  const { callback } = config;
  const callbackUrl = callback.baseUrl === undefined ? undefined : `${callback.baseUrl}${CALLBACK_PATH}`;
  const runner = new AdviceJobRunner(
    store,
    {
      draftConcurrency: config.advice.maxRunning,
      draftAttempts: config.advice.draftAttempts,
      deliveryConcurrency: 4,
      draftLeaseMs: config.advice.leaseMs,
      // The POST's own timeout plus room to record its outcome.
      deliveryLeaseMs: callback.timeoutMs + config.advice.leaseMs,
      retry: { baseDelayMs: callback.retryBaseMs, maxDelayMs: callback.retryMaxDelayMs, horizonMs: callback.retryHorizonMs },
      retentionMs: config.advice.retentionDays * DAY_MS,
    },
    {
      draft: (request, signal) => draftAdvice(request, llmCalls(engines, signal), Date.now() + config.advice.timeoutMs),
      processorVersion: () => ({ prompt: ADVICE_PROMPT_VERSION, model: engines.status('llm').model ?? 'unknown' }),
      deliver: async (delivery, signal) => {
        if (callbackUrl === undefined) return { delivered: false, detail: 'CALLBACK_BASE_URL is not set' };
        const target = { url: callbackUrl, secret: callback.secret, previousSecret: callback.previousSecret, timeoutMs: callback.timeoutMs };
        return postCallback(target, { webhookId: delivery.webhookId, body: delivery.callbackJson }, signal);
      },
      llmStarting: () => engines.status('llm').state === 'starting',
      ...(observe ? { observe } : {}),
    },
    logger.child({ component: 'advice-jobs' }),
  );

  return {
    async accept(request) {
      if (callbackUrl === undefined) {
        throw new GatewayError('engine_unavailable', 'AI-3 delivers its drafts by callback: set CALLBACK_BASE_URL');
      }
      const llm = engines.status('llm');
      if (llm.state !== 'ready' && llm.state !== 'starting') engines.requireReady('llm');
      const requestJson = JSON.stringify(request);
      const job = {
        requestId: request.request_id,
        bodySha256: createHash('sha256').update(requestJson).digest('hex'),
        requestJson,
        webhookId: `msg_${randomUUID()}`,
      };
      const result = await store.submit(job, Date.now());
      if (!result.created && !result.sameBody) {
        throw new GatewayError(
          'conflict',
          `request_id ${request.request_id} was already submitted with a different body; use a new request_id for a new request`,
        );
      }
      if (result.created) runner.kick();
      return { request_id: request.request_id, accepted: true };
    },
    async status(requestId) {
      const job = await store.find(requestId);
      if (!job) throw new GatewayError('not_found', 'no report advice job with this request_id');
      return statusView(job);
    },
    async redeliver(requestId) {
      if (!(await store.redeliver(requestId, Date.now()))) {
        const job = await store.find(requestId);
        if (!job) throw new GatewayError('not_found', 'no report advice job with this request_id');
        throw new GatewayError('conflict', `only a dead job can be redelivered; this one is ${job.state}`);
      }
      runner.kick();
      return this.status(requestId);
    },
    async recent(limit) {
      return (await store.recent(limit)).map(statusView);
    },
    countByState: () => store.countByState(),
    start: () => runner.start(),
    close: () => runner.close(),
  };
}

const iso = (epochMs: number) => new Date(epochMs).toISOString();

function statusView(job: AdviceJobView): AdviceJobStatus {
  return {
    request_id: job.requestId,
    state: job.state,
    outcome: job.outcome,
    error: job.error,
    webhook_id: job.webhookId,
    draft_attempts: job.draftAttempts,
    delivery_attempts: job.deliveryAttempts,
    next_attempt_at: job.nextRunAt === null ? null : iso(job.nextRunAt),
    accepted_at: iso(job.createdAt),
    updated_at: iso(job.updatedAt),
    history: job.events.map((event) => ({ at: iso(event.at), event: event.event, detail: event.detail })),
  };
}
