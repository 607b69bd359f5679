import { z } from 'zod';
import { integer, parseEnv, readConfigOrExit } from '../config.js';
import { openDatabase } from '../platform/store/database.js';
import { createLogger, describeError } from '../platform/logger.js';
import { buildReceiverApp } from './app.js';
import { RECEIVER_MIGRATIONS } from './store.js';

const envSchema = z
  .object({
    RECEIVER_HOST: z.string().min(1).default('127.0.0.1'),
    RECEIVER_PORT: integer.pipe(z.number().max(65_535)).default(9090),
    RECEIVER_DATA_DIR: z.string().min(1).default('./data/receiver'),
    CALLBACK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
    RECEIVER_ALLOW_UNSIGNED: z.enum(['true', 'false']).transform((v) => v === 'true').default(false),
    RECEIVER_TOLERANCE_SECONDS: integer.pipe(z.number().int().positive()).default(300),
  })
  .refine((env) => env.CALLBACK_SECRET !== undefined || env.RECEIVER_ALLOW_UNSIGNED, {
    path: ['CALLBACK_SECRET'],
    message: 'required unless RECEIVER_ALLOW_UNSIGNED=true',
  });

async function main(): Promise<void> {
  const env = readConfigOrExit(() => parseEnv(envSchema, process.env));
  const logger = createLogger('info');
  // A file of its own: the receiver's migrations must never meet the gateway's, even in one folder.
  const db = openDatabase(env.RECEIVER_DATA_DIR, RECEIVER_MIGRATIONS, 'receiver.sqlite');
  const app = await buildReceiverApp({
    db,
    secret: env.CALLBACK_SECRET,
    toleranceSeconds: env.RECEIVER_TOLERANCE_SECONDS,
    allowUnsigned: env.RECEIVER_ALLOW_UNSIGNED,
    logger,
  });
  if (env.RECEIVER_ALLOW_UNSIGNED) logger.warn('RECEIVER_ALLOW_UNSIGNED=true: callbacks without signature headers are accepted');
  const address = await app.listen({ host: env.RECEIVER_HOST, port: env.RECEIVER_PORT });
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
