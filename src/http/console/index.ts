/**
 * The operator's console: a page served from local files (no CDN, no fonts from outside) and
 * the data it shows, under /console/api behind the same bearer tokens as /ai/v1. The page itself
 * holds nothing and loads without a token; it keeps the token in the tab's sessionStorage.
 * Nothing the console shows is logged: the request log records route, status and duration only.
 */
import { readFile, readdir } from 'node:fs/promises';
import { extname } from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Config } from '../../config/index.js';
import { ENGINE_NAMES, type Engines } from '../../engines/registry.js';
import { engineReport } from '../../engines/engine-report.js';
import type { DeferredJobs } from '../../operations/index.js';
import type { AuditTrail } from '../../platform/audit-trail.js';
import type { Metrics } from '../../platform/metrics.js';
import type { Stores } from '../../platform/store/index.js';
import { ADVICE_JOB_STATES, REFERENCE_REPORT_PATH } from '../../contract/advice.js';
import { GatewayError } from '../../errors.js';
import { VERSION } from '../../version.js';
import { bearerAuth } from '../auth.js';
import { clientAbortSignal } from '../client-signal.js';
import { standardErrorBody, useErrorShape } from '../errors.js';
import type { ConsoleStatus, ConsoleUpload, ReceivedReport } from './answers.js';
import { auditExportRoutes } from './audit-export.js';
import { pagePreviewRoutes } from './page-previews.js';
import type { ConsoleUploads } from './uploads.js';

export interface ConsoleRoutesOptions {
  apiTokens: readonly string[];
  config: Config;
  engines: Engines;
  metrics: Metrics;
  stores: Stores;
  /** AI-3's jobs, shown on the status panel; absent where AI-3 is not served. */
  adviceJobs: DeferredJobs | undefined;
  uploads: ConsoleUploads;
  audit: AuditTrail;
}

/** The console's data, and the operator's routes beside it (the audit export). */
export const CONSOLE_API_PREFIX = '/console/api';

/** Copied next to the compiled plugin by `npm run build`. */
const ASSETS_DIR = new URL('./assets/', import.meta.url);
/** What the page is made of; any other file in assets/ is not served. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Same-origin only: the page runs no inline script and loads nothing from elsewhere. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' blob: data:",
  "media-src 'self' blob:",
  "object-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const RECENT_JOBS = 20;
/** What the status panel shows where AI-3 is not served. */
const NO_JOBS: ConsoleStatus['advice'] = {
  counts: Object.fromEntries(ADVICE_JOB_STATES.map((state) => [state, 0])) as ConsoleStatus['advice']['counts'],
  recent: [],
};

export const consoleRoutes: FastifyPluginAsync<ConsoleRoutesOptions> = async (app, options) => {
  // The page at /console, each of its modules and its styles under /console/ by file name.
  for (const name of await readdir(ASSETS_DIR)) {
    const type = CONTENT_TYPES[extname(name)];
    if (type === undefined) continue;
    const bytes = await readFile(new URL(name, ASSETS_DIR));
    app.get(name === 'index.html' ? '/console' : `/console/${name}`, (_request, reply: FastifyReply) =>
      reply
        .type(type)
        .header('cache-control', 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', CONTENT_SECURITY_POLICY)
        .header('referrer-policy', 'no-referrer')
        .send(bytes),
    );
  }
  await app.register(consoleApi, { ...options, prefix: CONSOLE_API_PREFIX });
};

const consoleApi: FastifyPluginAsync<ConsoleRoutesOptions> = async (api, options) => {
  const { config, engines, metrics, stores, adviceJobs, uploads } = options;
  if (options.apiTokens.length > 0) api.addHook('onRequest', bearerAuth(options.apiTokens));
  useErrorShape(api, standardErrorBody);
  api.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'private, no-store');
  });

  api.get('/status', async (): Promise<ConsoleStatus> => {
    const waits = await metrics.queueWaits();
    return {
      version: VERSION,
      engines: Object.fromEntries(
        ENGINE_NAMES.map((name) => [
          name,
          {
            ...engineReport(config, name, engines.status(name)),
            running: engines.limiter(name).running,
            queued: engines.limiter(name).queued,
            queue_waits: waits[name]?.count ?? 0,
            mean_queue_wait_seconds: waits[name]?.meanSeconds ?? 0,
          },
        ]),
      ) as ConsoleStatus['engines'],
      traffic: metrics.recentTraffic.summary(),
      advice: adviceJobs ? { counts: await adviceJobs.countByState(), recent: await adviceJobs.recent(RECENT_JOBS) } : NO_JOBS,
    };
  });

  // What the platform stored for a job, when the callback target is the reference receiver
  // (npm run receiver): the draft as the platform received it. Another platform answers 404.
  api.get<{ Params: { request_id: string } }>('/advice/:request_id/received', async (request): Promise<ReceivedReport> => {
    const { baseUrl, timeoutMs } = config.callback;
    if (baseUrl === undefined) throw new GatewayError('not_found', 'CALLBACK_BASE_URL is not set');
    const url = `${baseUrl}${REFERENCE_REPORT_PATH.replace(':request_id', encodeURIComponent(request.params.request_id))}`;
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) }).catch(() => undefined);
    if (!response?.ok) throw new GatewayError('not_found', 'the callback target shows no report for this job (it is not the reference receiver)');
    const report = (await response.json()) as Partial<ReceivedReport>;
    return { ai_status: report.ai_status ?? null, ai_advice_ref: report.ai_advice_ref ?? null };
  });

  // The body is handed over unread: uploads.receive streams it to disk under the fetch limits.
  api.addContentTypeParser('application/octet-stream', (_request, body, done) => done(null, body));
  api.post<{ Body: Readable }>('/uploads', async (request, reply) => {
    const declared = Number(request.headers['content-length']);
    const upload = await uploads.receive(request.body, Number.isInteger(declared) ? declared : undefined, clientAbortSignal(reply));
    const answer: ConsoleUpload = { file_url: upload.fileUrl, path: upload.path, token: upload.token };
    return reply.code(201).send(answer);
  });
  api.delete<{ Params: { token: string } }>('/uploads/:token', async (request, reply) => {
    await uploads.delete(request.params.token);
    return reply.code(204).send();
  });
  await api.register(pagePreviewRoutes, { config, stores });
  await api.register(auditExportRoutes, { trail: options.audit });
};
