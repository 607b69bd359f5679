import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from './config/index.js';
import { ENGINE_NAMES, Engines, createEngines } from './engines/registry.js';
import type { EngineName, EngineSet, EngineStatus } from './engines/types.js';
import { GatewayError } from './errors.js';
import { registerBearerAuth } from './http/auth.js';
import { registerDocs } from './http/docs.js';
import { sendError } from './http/errors.js';
import { registerFileRoutes } from './http/files.js';
import { registerHealthRoutes } from './http/health.js';
import { registerOperationRoutes } from './http/operations.js';
import { registerRequestLog } from './http/request-log.js';
import { createSafeFetcher, type SafeFetcher } from './platform/fetch/index.js';
import { Limiter } from './platform/limiter.js';
import type { Logger } from './platform/logger.js';
import { Metrics } from './platform/metrics.js';
import { openStores } from './platform/store/index.js';
import { createAdviceJobs } from './operations/report-advice-draft/jobs.js';
import { VERSION } from './version.js';

export interface AppOptions {
  config: Config;
  logger: Logger;
  /** Tests pass controllable engines; production builds them from the config. */
  engines?: EngineSet;
  fetcher?: SafeFetcher;
}

const BLOB_SWEEP_INTERVAL_MS = 10 * 60 * 1000;
const REQUEST_ID_HEADER = /^[\w.:-]{1,128}$/;
const FILE_TOKEN_MAX_CHARS = 512;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, logger } = options;
  const stores = openStores({
    dataDir: config.server.dataDir,
    publicBaseUrl: config.server.publicBaseUrl,
    ...(config.security.fileSigningSecret ? { signingSecret: config.security.fileSigningSecret } : {}),
  });
  const engineSet = options.engines ?? createEngines(config, logger);
  const metrics = new Metrics(
    {
      status: (name) => engines.status(name),
      running: (name) => engines.limiter(name).running,
      queued: (name) => engines.limiter(name).queued,
    },
    ENGINE_NAMES,
  );
  const limiters = Object.fromEntries(
    ENGINE_NAMES.map((name) => [name, new Limiter(name, config[name], metrics.limiterObserver(name))]),
  ) as Record<EngineName, Limiter>;
  const engines = new Engines(engineSet, limiters);
  engines.start();
  const adviceJobs = createAdviceJobs({
    config,
    engines,
    store: stores.adviceJobs,
    logger,
    observe: metrics.adviceObserver(),
  });
  metrics.observeAdviceJobs(() => stores.adviceJobs.countByState());
  await adviceJobs.start();

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.server.bodyLimitBytes,
    return503OnClosing: false,
    routerOptions: { maxParamLength: FILE_TOKEN_MAX_CHARS },
    frameworkErrors: (error, request, reply) => sendError(request, reply, error),
    genReqId: (request) => {
      const header = request.headers['x-request-id'];
      return typeof header === 'string' && REQUEST_ID_HEADER.test(header) ? header : randomUUID();
    },
  });
  app.decorateReply('errorKind', undefined);
  app.decorateRequest('bodyRequestId', undefined);
  app.removeContentTypeParser('text/plain');
  app.decorate('engineStatus', (name: EngineName) => engines.status(name));

  let closing = false;
  app.addHook('onRequest', async () => {
    if (closing) throw new GatewayError('overloaded', 'the gateway is shutting down', { retryAfterSeconds: 5 });
  });
  app.addHook('preClose', async () => {
    closing = true;
  });
  // While draining, answers end their connection, or a pooling client's idle keep-alive
  // socket would hold the close open until the deadline.
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error));
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new GatewayError('not_found', 'no such route; the API is described at /docs')),
  );

  registerRequestLog(app, metrics);
  registerBearerAuth(app, config.security.apiTokens);
  await registerDocs(app, VERSION);
  registerHealthRoutes(app, engines, metrics, config);
  registerFileRoutes(app, stores);
  registerOperationRoutes(app, {
    engines,
    stores,
    adviceJobs,
    fetcher: options.fetcher ?? createSafeFetcher({ ...config.fetch, maxAudioBytes: config.asr.maxBytes }),
    documentLimits: { maxPages: config.ocr.maxPages, maxPagePixels: config.ocr.maxPagePixels },
    fileUrlTtlSeconds: config.security.fileUrlTtlSeconds,
    deid: { minConfidence: config.deid.minConfidence, observer: metrics.deidObserver() },
  });

  const sweeper = setInterval(() => {
    stores.blobs.sweepExpired().catch((error: unknown) => app.log.warn({ err: error }, 'blob sweep failed'));
  }, BLOB_SWEEP_INTERVAL_MS).unref();
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
    await adviceJobs.close();
    await engines.close();
    stores.close();
  });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    engineStatus(name: EngineName): EngineStatus;
  }
}
