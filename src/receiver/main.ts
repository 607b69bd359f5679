import { deprecatedSettings } from '../config/define.js';
import { readConfigOrExit } from '../config/index.js';
import { createLogger, describeError } from '../platform/logger.js';
import { buildReceiverApp } from './app.js';
import { loadReceiverConfig, RECEIVER_SETTINGS } from './settings.js';
import { openReceiverDatabase } from './store.js';

async function main(): Promise<void> {
  const settings = readConfigOrExit(() => loadReceiverConfig(process.env));
  const logger = createLogger('info');
  for (const deprecation of deprecatedSettings(RECEIVER_SETTINGS, process.env)) logger.warn(deprecation);
  const db = await openReceiverDatabase(settings.dataDir);
  const app = await buildReceiverApp({
    db,
    secret: settings.secret,
    previousSecret: settings.previousSecret,
    toleranceSeconds: settings.toleranceSeconds,
    allowUnsigned: settings.allowUnsigned,
    logger,
  });
  if (settings.allowUnsigned) logger.warn('RECEIVER_ALLOW_UNSIGNED=true: callbacks without signature headers are accepted');
  const address = await app.listen({ host: settings.host, port: settings.port });
  logger.info({ address }, 'receiver listening');

  const stop = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'stopping');
    app.close().then(
      () => {
        db.close();
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: describeError(error) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(`receiver failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
