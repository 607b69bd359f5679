/**
 * buildApp(options) → the gateway as a fastify instance, not listening (main.ts starts it; tests
 * use `inject`). The services are made first (stores, engines behind their limiters, metrics,
 * AI-3's job runner), then plugins are registered in a fixed order: what every request passes
 * through (request log, draining), then the routes (docs, health, files, the AI operations).
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { accessTokens, type Config } from './config/index.js';
import { ENGINE_NAMES, Engines, createEngines } from './engines/registry.js';
import type { EngineName, EngineSet, EngineStatus } from './engines/types.js';
import { aiRoutes, type OperationServices, type ServedOperation } from './http/ai-routes.js';
import { auditRequests } from './http/audit.js';
import { Authenticator } from './http/auth.js';
import { CONSOLE_API_PREFIX, consoleRoutes } from './http/console/index.js';
import { ConsoleUploads } from './http/console/uploads.js';
import { capConnections, connectionOptions } from './http/connections.js';
import { docsRoutes } from './http/docs.js';
import { draining } from './http/draining.js';
import { sendError, standardErrorBody, useErrorShape } from './http/errors.js';
import { fileRoutes } from './http/files.js';
import { healthRoutes } from './http/health.js';
import { requestLog } from './http/request-log.js';
import { unreadBody } from './http/unread-body.js';
import { AI_PREFIX, OPERATIONS } from './contract/operations.js';
import { GATEWAY_OPERATIONS, type Operation } from './operations/index.js';
import { AuditTrail } from './platform/audit-trail.js';
import { ByteBudget, createSafeFetcher, withLocalFiles, type SafeFetcher } from './platform/fetch/index.js';
import { Limiter } from './platform/limiter.js';
import type { Logger } from './platform/logger.js';
import { Metrics } from './platform/metrics.js';
import { openStores, type Stores } from './platform/store/index.js';
import { sweepTempDirs } from './platform/temp.js';
import { VERSION } from './version.js';

export interface AppOptions {
  config: Config;
  logger: Logger;
  /** Tests pass controllable engines; production builds them from the config. */
  engines?: EngineSet;
  fetcher?: SafeFetcher;
  /** The operations to serve; all of the gateway's by default. */
  operations?: readonly Operation[];
}

interface Services {
  stores: Stores;
  engines: Engines;
  metrics: Metrics;
  operations: readonly ServedOperation[];
  operationServices: OperationServices;
  uploads: ConsoleUploads;
  audit: AuditTrail;
}

const STORE_SWEEP_INTERVAL_MS = 10 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
const REQUEST_ID_HEADER = /^[\w.:-]{1,128}$/;
const FILE_TOKEN_MAX_CHARS = 512;
/** An answer before the body was read waits for the rest of it (so the client reads the answer), up to this many body limits… */
const UNREAD_BODY_DISCARD_LIMITS = 8;
/** …and this long. */
const UNREAD_BODY_DISCARD_MS = 30_000;

/**
 * Before this gateway stores a file or makes a temp folder: the recordings and half-stored files
 * a gateway killed mid-request (SIGKILL, OOM) left. Counts only: the names are patients' files.
 */
async function sweepWhatAKilledGatewayLeft(stores: Stores, logger: Logger): Promise<void> {
  const swept = { temp_folders: await sweepTempDirs(), blob_files: await stores.blobs.sweepLeftovers() };
  if (swept.temp_folders + swept.blob_files > 0) logger.info(swept, 'deleted what a stopped gateway left behind');
}

/** Opens the stores (with the operations' own tables), starts the engines loading, then the operations. */
async function startServices({ config, logger, operations = GATEWAY_OPERATIONS, ...options }: AppOptions): Promise<Services> {
  const { databaseUrl } = config.server;
  const stores = await openStores({
    dataDir: config.server.dataDir,
    publicBaseUrl: config.server.publicBaseUrl,
    ...(config.security.fileSigningSecret ? { signingSecret: config.security.fileSigningSecret } : {}),
    ...(databaseUrl ? { database: { url: databaseUrl, poolSize: config.server.databasePoolSize } } : {}),
    migrations: operations.flatMap((operation) => operation.migrations ?? []),
    logger,
  });
  await sweepWhatAKilledGatewayLeft(stores, logger);
  const metrics = new Metrics(
    {
      status: (name) => engines.status(name),
      running: (name) => engines.limiter(name).running,
      queued: (name) => engines.limiter(name).queued,
    },
    ENGINE_NAMES,
  );
  metrics.observeStore(stores.database);
  const limiters = Object.fromEntries(
    ENGINE_NAMES.map((name) => [name, new Limiter(name, config[name], metrics.limiterObserver(name))]),
  ) as Record<EngineName, Limiter>;
  const engines = new Engines(options.engines ?? createEngines(config, logger), limiters);
  engines.start();
  const environment = { config, engines, stores, logger, metrics: metrics.registry };
  const served: ServedOperation[] = [];
  for (const operation of operations) served.push({ contract: operation.contract, started: await operation.start(environment) });
  const downloads = new ByteBudget(config.fetch.maxInFlightBytes, config.fetch.queueTimeoutMs);
  metrics.observeDownloads(downloads);
  const uploadLimits = { document: config.fetch.maxBytes, audio: config.asr.maxBytes };
  const uploads = new ConsoleUploads(stores, config.server.publicBaseUrl, uploadLimits, downloads);
  const fetcher = options.fetcher ?? createSafeFetcher({ ...config.fetch, maxAudioBytes: config.asr.maxBytes, budget: downloads });
  const operationServices: OperationServices = {
    engines,
    stores,
    // The console's uploads are read from the store; every other URL is fetched safely.
    fetcher: withLocalFiles(fetcher, uploads.open, downloads),
    documentLimits: { maxPages: config.ocr.maxPages, maxPagePixels: config.ocr.maxPagePixels, pdfHeapMb: config.ocr.pdfHeapMb, pdfPageTimeoutMs: config.ocr.pdfPageTimeoutMs },
  };
  const audit = new AuditTrail(stores.audit, logger);
  return { stores, engines, metrics, operations: served, operationServices, uploads, audit };
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, logger } = options;
  const services = await startServices(options);
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.server.bodyLimitBytes,
    ...connectionOptions(config.server),
    return503OnClosing: false,
    routerOptions: { maxParamLength: FILE_TOKEN_MAX_CHARS },
    frameworkErrors: (error, request, reply) => sendError(request, reply, error),
    genReqId: (request) => {
      const header = request.headers['x-request-id'];
      return typeof header === 'string' && REQUEST_ID_HEADER.test(header) ? header : randomUUID();
    },
  });
  capConnections(app.server, config.server.maxConnections, app.log);
  app.decorateReply('errorKind', undefined);
  app.decorateRequest('bodyRequestId', undefined);
  app.decorateRequest('uploadFileIds', undefined);
  app.removeContentTypeParser('text/plain');
  app.decorate('engineStatus', (name: EngineName) => services.engines.status(name));
  app.decorate('stopEngines', () => services.engines.close());
  useErrorShape(app, standardErrorBody);
  const auth = new Authenticator(accessTokens(config.security));

  await app.register(requestLog, { metrics: services.metrics });
  await app.register(auditRequests, { trail: services.audit, prefixes: [`${AI_PREFIX}/`, `${CONSOLE_API_PREFIX}/`] });
  await app.register(draining);
  await app.register(unreadBody, {
    discardBytes: UNREAD_BODY_DISCARD_LIMITS * config.server.bodyLimitBytes,
    discardWithinMs: UNREAD_BODY_DISCARD_MS,
  });
  await app.register(docsRoutes, { version: VERSION, publicBaseUrl: config.server.publicBaseUrl });
  await app.register(healthRoutes, { engines: services.engines, metrics: services.metrics, config, auth, store: services.stores.database });
  await app.register(fileRoutes, { stores: services.stores });
  await app.register(aiRoutes, {
    prefix: AI_PREFIX,
    auth,
    services: services.operationServices,
    operations: services.operations,
  });
  await app.register(consoleRoutes, {
    auth,
    config,
    ...services,
    adviceJobs: services.operations.find(({ contract }) => contract.id === OPERATIONS.reportAdviceDraft.id)?.started.jobs,
  });

  /** Runs `purge` on what was made more than `days` ago; logs how many rows went (counts only). */
  const purgeOlderThan = (days: number, purge: (before: number) => Promise<number>, logAs: { field: string; deleted: string; failed: string }) =>
    purge(Date.now() - days * DAY_MS)
      .then((purged) => {
        if (purged > 0) app.log.info({ [logAs.field]: purged }, logAs.deleted);
      })
      .catch((error: unknown) => app.log.warn({ err: error }, logAs.failed));
  const sweepStores = () => {
    const { artifacts, audit, blobs } = services.stores;
    blobs.sweepExpired().catch((error: unknown) => app.log.warn({ err: error }, 'blob sweep failed'));
    void purgeOlderThan(config.server.artifactRetentionDays, (before) => artifacts.purgeCreatedBefore(before), {
      field: 'artifacts',
      deleted: 'cached results past ARTIFACT_RETENTION_DAYS deleted',
      failed: 'artifact purge failed',
    });
    void purgeOlderThan(config.server.auditRetentionDays, (before) => audit.purgeBefore(before), {
      field: 'audit_records',
      deleted: 'audit records past AUDIT_RETENTION_DAYS deleted',
      failed: 'audit purge failed',
    });
  };
  sweepStores();
  const sweeper = setInterval(sweepStores, STORE_SWEEP_INTERVAL_MS).unref();
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
    for (const { started } of services.operations) await started.close?.();
    await services.engines.close();
    await services.audit.close();
    await services.stores.close();
  });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    engineStatus(name: EngineName): EngineStatus;
    /** Stops every engine's work in flight and releases it (the HTTP drain is not waited for). */
    stopEngines(): Promise<void>;
  }
}
