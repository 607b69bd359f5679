import { buildApp } from './app.js';
import { configDeprecations, loadConfig, readConfigOrExit, type Config } from './config/index.js';
import { fetchAllowlistWarning } from './config/exposure.js';
import type { FastifyInstance } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENGINE_NAMES } from './engines/registry.js';
import { settledStatus } from './engines/readiness.js';
import { engineReport, formatEngineReport } from './engines/engine-report.js';
import { createLogger, describeError, type Logger } from './platform/logger.js';
import { STOP_GRACE_MS } from './platform/process/index.js';
import { VERSION } from './version.js';

function warnAboutRiskySettings(config: Config, logger: Logger): void {
  if (config.security.apiTokens.length === 0) logger.warn('API_TOKENS is not set: /ai/ routes accept unauthenticated requests');
  if (config.fetch.allowLoopback) logger.warn('FETCH_ALLOW_LOOPBACK=true: file URLs may point at this machine');
  const allowlistWarning = fetchAllowlistWarning(config);
  if (allowlistWarning) logger.warn(allowlistWarning);
  if (config.callback.baseUrl && !config.callback.secret) logger.warn('CALLBACK_SECRET is not set: callbacks go unsigned');
}

const SETTLE_LIMIT_MS = 15 * 60 * 1000;

/**
 * Once no engine is still starting (models load in the background), one table for the operator:
 * each engine, its model and whether its sha256 was verified, device, threads and concurrency.
 * The same is on /readyz as JSON.
 */
async function reportEnginesOnceSettled(app: FastifyInstance, config: Config, logger: Logger): Promise<void> {
  await Promise.all(ENGINE_NAMES.map((name) => settledStatus(() => app.engineStatus(name), SETTLE_LIMIT_MS)));
  const reports = Object.fromEntries(ENGINE_NAMES.map((name) => [name, engineReport(config, name, app.engineStatus(name))]));
  logger.info({ engines: reports }, `startup report\n${formatEngineReport(reports)}`);
}

async function main(): Promise<void> {
  // Whatever the gateway writes (database, produced files, recordings in temp folders) is its own
  // alone, whatever the shell or image that started it would allow.
  process.umask(0o077);
  const config = readConfigOrExit(() => loadConfig());
  const logger = createLogger(config.server.logLevel);
  for (const deprecation of configDeprecations()) logger.warn(deprecation);
  const exitOnFault = (origin: string) => (error: unknown) => {
    logger.fatal({ err: describeError(error), origin }, 'unexpected fault; exiting so the supervisor restarts the gateway');
    process.exit(70); // EX_SOFTWARE
  };
  process.on('uncaughtException', exitOnFault('uncaughtException'));
  process.on('unhandledRejection', exitOnFault('unhandledRejection'));

  const app = await buildApp({ config, logger });
  warnAboutRiskySettings(config, logger);
  await app.listen({ host: config.server.host, port: config.server.port });
  const engines = Object.fromEntries(ENGINE_NAMES.map((name) => [name, app.engineStatus(name)]));
  logger.info({ version: VERSION, engines }, 'gateway started');
  void reportEnginesOnceSettled(app, config, logger);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second stop signal; exiting without waiting for the drain');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, deadline_ms: config.server.shutdownTimeoutMs }, 'draining in-flight requests');
    let deadlinePassed = false;
    setTimeout(() => {
      deadlinePassed = true;
      logger.error('drain deadline passed; exiting with requests still in flight');
      // The engines stop their work first: a worker thread torn down while onnxruntime runs in
      // it aborts the whole process (exit 134, not 1). Each stops within a model call.
      void Promise.race([app.stopEngines(), sleep(STOP_GRACE_MS)]).finally(() => process.exit(1));
    }, config.server.shutdownTimeoutMs).unref();
    app.close().then(
      () => {
        // Past the deadline, stopping the engines ended the requests that were still in flight.
        if (deadlinePassed) return;
        logger.info('stopped');
        process.exit(0);
      },
      exitOnFault('shutdown'),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(`gateway failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
