#!/usr/bin/env node
/**
 * The on-site self-test: every operation against the running gateway, on samples shipped with
 * it, checked against the contract; per engine the device and the first and a warm call.
 *
 *   mdt-gateway selftest [--base-url http://127.0.0.1:8080] [--token T] [--wait 600]
 *                        [--callback-timeout 600] [--slow-first 5] [--require-all] [--contract-only]
 *
 * Reads the gateway's own environment where a flag is not given: PORT (the base URL),
 * OPERATOR_TOKENS (the first token: the self-test uses the console's uploads and status, and an
 * operator token also reaches /ai/v1; else the first of API_TOKENS), CALLBACK_BASE_URL and CALLBACK_SECRET (AI-3: the self-test listens
 * there with the reference receiver when it is a loopback http:// address, and verifies the
 * signature; otherwise AI-3 is skipped, since its callback would go to the platform). Exit status:
 * 0 passed, 1 a check failed (or was skipped, with --require-all), 2 passed but a first call was slow.
 * --contract-only: random-weight test models, whose AI-3 drafts fail for their noise (checks.ts).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { firstToken } from '../config/index.js';
import { selftest } from './selftest/run.js';

const USAGE = `mdt-gateway selftest [--base-url URL] [--token T] [--wait S] [--callback-timeout S] [--slow-first S]
                     [--require-all] [--contract-only]

Every operation against the running gateway on samples shipped with it; exit 0 passed, 1 a check
failed, 2 passed with a first call slower than a warm one by more than --slow-first (default 5) s.
Defaults from the gateway's environment: --base-url http://127.0.0.1:$PORT, --token the first of
OPERATOR_TOKENS (the self-test needs an operator token), else of API_TOKENS; AI-3 listens on CALLBACK_BASE_URL (a loopback http:// address, else AI-3 is skipped)
and checks signatures with CALLBACK_SECRET. Operator's guide §2.7.`;

/** The samples, copied beside the compiled self-test by `npm run build`. */
const SAMPLES = new URL('./selftest/samples/', import.meta.url);

async function main(): Promise<number> {
  const env = process.env;
  const { values } = parseArgs({
    options: {
      'base-url': { type: 'string', default: `http://127.0.0.1:${env.PORT?.trim() || 8080}` },
      token: { type: 'string', default: firstToken(env.OPERATOR_TOKENS) ?? firstToken(env.API_TOKENS) },
      wait: { type: 'string', default: '600' },
      'callback-timeout': { type: 'string', default: '600' },
      'slow-first': { type: 'string', default: '5' },
      'require-all': { type: 'boolean', default: false },
      'contract-only': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  return selftest({
    baseUrl: values['base-url'],
    token: values.token,
    waitMs: Number(values.wait) * 1000,
    callbackTimeoutMs: Number(values['callback-timeout']) * 1000,
    slowFirstMs: Number(values['slow-first']) * 1000,
    requireAll: values['require-all'],
    contractOnly: values['contract-only'],
    env,
    samples: { page: await readFile(new URL('page.png', SAMPLES)), recording: await readFile(new URL('recording.wav', SAMPLES)) },
    print: (line) => console.log(line),
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`selftest: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
