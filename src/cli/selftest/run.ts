/**
 * The self-test's run: wait for the gateway, listen for AI-3's callback, run every check,
 * print the verdict (selftest.ts reads the command line and the shipped samples).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REFERENCE_REPORT_PATH } from '../../contract/advice.js';
import { createLogger } from '../../platform/logger.js';
import { buildReceiverApp } from '../../receiver/app.js';
import { loadReceiverConfig } from '../../receiver/settings.js';
import { openReceiverDatabase } from '../../receiver/store.js';
import { runChecks, type CallbackTarget, type Samples } from './checks.js';
import { GatewayClient } from './gateway-client.js';
import { EXIT, verdict } from './report.js';

export interface SelftestOptions {
  baseUrl: string;
  token: string | undefined;
  /** Longest wait for /readyz to answer 200. */
  waitMs: number;
  callbackTimeoutMs: number;
  slowFirstMs: number;
  requireAll: boolean;
  contractOnly: boolean;
  /** The gateway's environment: CALLBACK_BASE_URL and CALLBACK_SECRET (AI-3). */
  env: NodeJS.ProcessEnv;
  samples: Samples;
  print(line: string): void;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The reference receiver on the gateway's CALLBACK_BASE_URL, or why AI-3 cannot be checked here. */
async function listenForCallbacks(env: NodeJS.ProcessEnv, dataDir: string): Promise<{ target: CallbackTarget | { skipped: string }; close(): Promise<void> }> {
  const base = env.CALLBACK_BASE_URL?.trim();
  const none = (skipped: string) => ({ target: { skipped }, close: async () => {} });
  if (!base) return none("CALLBACK_BASE_URL is not set here; give the self-test the gateway's environment");
  const url = new URL(base);
  if (url.protocol !== 'http:' || !LOOPBACK.has(url.hostname) || !url.port || url.pathname.replace(/\/+$/, '') !== '') {
    return none(`CALLBACK_BASE_URL ${url.origin} is the platform, not a loopback http://127.0.0.1:<port> the self-test can listen on (operator's guide §2.7)`);
  }
  const settings = loadReceiverConfig({ ...env, RECEIVER_ALLOW_UNSIGNED: env.CALLBACK_SECRET ? 'false' : 'true' });
  const db = await openReceiverDatabase(dataDir);
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

/** Runs the self-test; resolves to its exit status (report.ts). */
export async function selftest(options: SelftestOptions): Promise<number> {
  const client = new GatewayClient(options.baseUrl.replace(/\/+$/, ''), options.token, 15 * 60_000);
  options.print(`self-test of ${client.baseUrl}`);
  if (!(await client.waitUntilReady(options.waitMs))) {
    const engines = await client.engines().catch(() => undefined);
    options.print(`not ready within ${options.waitMs / 1000} s:`);
    for (const [name, engine] of Object.entries(engines ?? {})) options.print(`  ${name}: ${engine.state}${engine.reason ? ` (${engine.reason})` : ''}`);
    return EXIT.failed;
  }
  const engines = await client.engines();
  const dataDir = await mkdtemp(join(tmpdir(), 'mdt-selftest-'));
  const callbacks = await listenForCallbacks(options.env, dataDir);
  try {
    const results = await runChecks({
      client,
      samples: options.samples,
      callbacks: callbacks.target,
      callbackTimeoutMs: options.callbackTimeoutMs,
      runId: Date.now().toString(36),
      contractOnly: options.contractOnly,
    });
    const result = verdict(results, engines, options.slowFirstMs, options.requireAll);
    for (const line of result.lines) options.print(line);
    return result.exitCode;
  } finally {
    await callbacks.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
