#!/usr/bin/env node
/**
 * The on-site self-test: every operation against the running gateway, on samples shipped with
 * it, checked against the contract; per engine the device and the first and a warm call.
 *
 *   mdt-gateway selftest [--base-url http://127.0.0.1:8080] [--token T] [--wait 600]
 *                        [--callback-timeout 600] [--slow-first 5] [--require-all] [--contract-only]
 *
 * Reads the gateway's own environment where a flag is not given: PORT (the base URL),
 * API_TOKENS (the first token), CALLBACK_BASE_URL and CALLBACK_SECRET (AI-3: the self-test listens
 * there with the reference receiver when it is a loopback http:// address, and verifies the
 * signature; otherwise AI-3 is skipped, since its callback would go to the platform). Exit status:
 * 0 passed, 1 a check failed (or was skipped, with --require-all), 2 passed but a first call was slow.
 * --contract-only: random-weight test models, whose AI-3 drafts fail for their noise (checks.ts).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { REFERENCE_REPORT_PATH } from '../contract/advice.js';
import { createLogger } from '../platform/logger.js';
import { openDatabase } from '../platform/store/database.js';
import { buildReceiverApp } from '../receiver/app.js';
import { loadReceiverConfig } from '../receiver/settings.js';
import { RECEIVER_MIGRATIONS } from '../receiver/store.js';
import { runChecks, type CallbackTarget, type CheckContext } from './selftest/checks.js';
import { GatewayClient } from './selftest/gateway-client.js';
import { EXIT, verdict } from './selftest/report.js';

/** The samples, copied beside the compiled self-test by `npm run build`. */
const SAMPLES = new URL('./selftest/samples/', import.meta.url);

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The reference receiver on the gateway's CALLBACK_BASE_URL, or why AI-3 cannot be checked here. */
async function listenForCallbacks(env: NodeJS.ProcessEnv, dataDir: string): Promise<{ target: CallbackTarget | { skipped: string }; close(): Promise<void> }> {
  const base = env.CALLBACK_BASE_URL?.trim();
  const none = (skipped: string) => ({ target: { skipped }, close: async () => {} });
  if (!base) return none('CALLBACK_BASE_URL is not set here; give the self-test the gateway\'s environment');
  const url = new URL(base);
  if (url.protocol !== 'http:' || !LOOPBACK.has(url.hostname) || !url.port || url.pathname.replace(/\/+$/, '') !== '') {
    return none(`CALLBACK_BASE_URL ${url.origin} is the platform, not a loopback http://127.0.0.1:<port> the self-test can listen on (operator's guide §11.1)`);
  }
  const settings = loadReceiverConfig({ ...env, RECEIVER_ALLOW_UNSIGNED: env.CALLBACK_SECRET ? 'false' : 'true' });
  const db = openDatabase(dataDir, RECEIVER_MIGRATIONS, 'receiver.sqlite');
  const app = await buildReceiverApp({ ...settings, db, logger: createLogger('silent') });
  await app.listen({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) });
  const target: CallbackTarget = {
    report: async (requestId) => {
      const response = await app.inject({ method: 'GET', url: REFERENCE_REPORT_PATH.replace(':request_id', encodeURIComponent(requestId)) });
      return response.statusCode === 200 ? response.json() : undefined;
    },
  };
  return {
    target,
    close: async () => {
      await app.close();
      db.close();
    },
  };
}

async function main(): Promise<number> {
  const env = process.env;
  const { values } = parseArgs({
    options: {
      'base-url': { type: 'string', default: `http://127.0.0.1:${env.PORT?.trim() || 8080}` },
      token: { type: 'string', default: env.API_TOKENS?.split(',')[0]?.trim() || undefined },
      wait: { type: 'string', default: '600' },
      'callback-timeout': { type: 'string', default: '600' },
      'slow-first': { type: 'string', default: '5' },
      'require-all': { type: 'boolean', default: false },
      'contract-only': { type: 'boolean', default: false },
    },
  });
  const client = new GatewayClient(values['base-url'].replace(/\/+$/, ''), values.token, 15 * 60_000);
  console.log(`self-test of ${client.baseUrl}`);
  if (!(await client.waitUntilReady(Number(values.wait) * 1000))) {
    const engines = await client.engines().catch(() => undefined);
    console.log(`not ready within ${values.wait} s:`);
    for (const [name, engine] of Object.entries(engines ?? {})) console.log(`  ${name}: ${engine.state}${engine.reason ? ` (${engine.reason})` : ''}`);
    return EXIT.failed;
  }
  const engines = await client.engines();
  const dataDir = await mkdtemp(join(tmpdir(), 'mdt-selftest-'));
  const callbacks = await listenForCallbacks(env, dataDir);
  try {
    const context: CheckContext = {
      client,
      samples: { page: await readFile(new URL('page.png', SAMPLES)), recording: await readFile(new URL('recording.wav', SAMPLES)) },
      callbacks: callbacks.target,
      callbackTimeoutMs: Number(values['callback-timeout']) * 1000,
      runId: Date.now().toString(36),
      contractOnly: values['contract-only'],
    };
    const result = verdict(await runChecks(context), engines, Number(values['slow-first']) * 1000, values['require-all']);
    for (const line of result.lines) console.log(line);
    return result.exitCode;
  } finally {
    await callbacks.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`selftest: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(EXIT.failed);
  },
);
