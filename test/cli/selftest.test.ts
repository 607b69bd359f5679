/**
 * The self-test against a real gateway on loopback, with scripted engines so it runs in seconds:
 * the samples go in as console uploads, AI-3's callback comes back signed to the self-test's own
 * receiver, and the verdict's exit status says what monitoring needs. CI runs the same command
 * from the unpacked release on the real engines (scripts/check-artefact.sh).
 */
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { firstToken } from '../../src/config/index.js';
import { GatewayError } from '../../src/errors.js';
import type { AsrEngine, OcrEngine, OcrPage, Transcript } from '../../src/engines/types.js';
import { selftest, type SelftestOptions } from '../../src/cli/selftest/run.js';
import { EXIT, verdict } from '../../src/cli/selftest/report.js';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { fixturePath } from '../../scripts/lib/paths.js';
import { onFreePort } from '../../scripts/lib/processes.js';
import { speechScript } from '../support/speech-script.js';
import { ScriptedLlmEngine } from '../support/test-engines.js';
import { enginesWith } from '../../scripts/lib/stand-in-engines.js';
import { webhookSecretFor } from '../../scripts/lib/secrets.js';

/** The self-test uses the console's uploads and status: it needs an operator token. */
const TOKEN = 'selftest-operator-token-0123456789';
const SECRET = webhookSecretFor('selftest');

const ADVICE_ANSWER = { overall: '两科均倾向先行系统治疗。', recommendations: [{ advice: '先行新辅助治疗。', departments: ['胸外科'] }], open_questions: '' };
const speechAnswer = speechScript({ 1: { status: 'covered', quote: '右肺上叶见3.2厘米肿块' }, 2: { status: 'covered', quote: '分期考虑T2aN2M0' } });

/** Reads one printed line, wherever the page is: enough for the contract's checks. */
const ocr: OcrEngine = {
  name: 'ocr',
  status: () => ({ state: 'ready', configured: true, model: 'scripted', device: 'scripted-ocr' }),
  start: async () => {},
  close: async () => {},
  recognize: async (): Promise<OcrPage> => ({
    text: '病理诊断报告',
    words: [{ text: '病理诊断报告', confidence: 95, box: { x0: 10, y0: 10, x1: 200, y1: 40 }, line: 0 }],
    width: 800,
    height: 600,
    confidence: 95,
    rotation: 0,
    deskewRadians: 0,
  }),
};

function asr(transcribe: () => Promise<Transcript>): AsrEngine {
  return { name: 'asr', status: () => ({ state: 'ready', configured: true, model: 'scripted', device: 'scripted-asr' }), start: async () => {}, close: async () => {}, transcribe };
}

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

interface RunOptions {
  asrEngine?: AsrEngine;
  callbackBase?: (port: number) => string;
  requireAll?: boolean;
}

/** The self-test of a gateway on a free port whose callbacks go to another; on other ports when one was taken meanwhile. */
const run = (options: RunOptions = {}) => onFreePort((port) => onFreePort((callbackPort) => runOn(port, callbackPort, options)));

async function runOn(port: number, callbackPort: number, options: RunOptions) {
  const callbackBase = options.callbackBase?.(callbackPort) ?? `http://127.0.0.1:${callbackPort}`;
  const env = { API_TOKENS: 'platform=selftest-client-token-0123456789', OPERATOR_TOKENS: `selftest=${TOKEN}`, CALLBACK_BASE_URL: callbackBase, CALLBACK_SECRET: SECRET, PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, CALLBACK_RETRY_HORIZON_MS: '2000' };
  const llm = new ScriptedLlmEngine((request) => (request.schema.safeParse(ADVICE_ANSWER).success ? ADVICE_ANSWER : speechAnswer(request)));
  const engines = enginesWith({ llm, ocr, asr: options.asrEngine ?? asr(async () => ({ text: '你好', segments: [{ startMs: 0, endMs: 900, text: '你好' }] })) });
  gateway = await startGateway(env, { engines, listen: port });
  const lines: string[] = [];
  const selftestOptions: SelftestOptions = {
    baseUrl: `http://127.0.0.1:${port}`,
    token: firstToken(env.OPERATOR_TOKENS),
    waitMs: 10_000,
    callbackTimeoutMs: 10_000,
    slowFirstMs: 5_000,
    requireAll: options.requireAll ?? false,
    contractOnly: false,
    env,
    samples: { page: await readFile(fixturePath('ocr', 'report2.png')), recording: await readFile(fixturePath('audio', 'wenet_aishell-BAC009S0724W0121.wav')) },
    print: (line) => lines.push(line),
  };
  const code = await selftest(selftestOptions).catch(async (error: unknown) => {
    await gateway?.close();
    gateway = undefined;
    throw error;
  });
  return { code, lines, row: (operation: string) => lines.find((line) => line.startsWith(`${operation} `)) ?? '' };
}

describe('mdt-gateway selftest', () => {
  it('passes every operation of a working gateway: devices, first and warm calls, the signed AI-3 callback', async () => {
    const { code, lines, row } = await run();
    expect(code).toBe(EXIT.ok);
    expect(lines.at(-1)).toBe('5 passed, 0 failed, 0 skipped');
    expect(row('speech-process')).toMatch(/^speech-process\s+llm\s+\S.*\s+ok\s+[\d.]+ s\s+[\d.]+ s\s+model scripted\.gguf@000000000000$/);
    expect(row('report-advice-draft')).toMatch(/ok\s+[\d.]+ s\s+-\s+signed callback delivered, \d+ characters$/);
    expect(row('case-ocr')).toMatch(/^case-ocr\s+ocr\s+scripted-ocr\s+ok\s+.*6 characters read$/);
    expect(row('case-file-process')).toMatch(/ok\s+.*boxes painted$/);
    expect(row('asr')).toMatch(/^asr\s+asr\s+scripted-asr\s+ok\s+.*1 segments$/);
  });

  it('fails an operation whose engine fails, with its error kind, and exits 1', async () => {
    const { code, row } = await run({ asrEngine: asr(async () => { throw new GatewayError('engine_failed', 'whisper-cli exited with code 1'); }) });
    expect(row('asr')).toMatch(/failed\s+-\s+-\s+HTTP 500: engine_failed: whisper-cli exited with code 1$/);
    expect(code).toBe(EXIT.failed);
  });

  it('skips AI-3 when the callbacks go to the platform, never sending it a synthetic draft; --require-all fails then', async () => {
    const platform = () => 'http://10.255.255.1:9';
    const skipped = await run({ callbackBase: platform });
    expect(skipped.row('report-advice-draft')).toContain('skipped  -      -      CALLBACK_BASE_URL http://10.255.255.1:9 is the platform');
    expect(skipped.code).toBe(EXIT.ok);
    expect(skipped.lines.at(-1)).toBe('4 passed, 0 failed, 1 skipped');
    await gateway?.close();
    gateway = undefined;
    expect((await run({ callbackBase: platform, requireAll: true })).code).toBe(EXIT.failed);
  });
});

describe('the verdict', () => {
  it('flags a first call much slower than a warm one as a likely JIT compile, exit 2', () => {
    const result = verdict(
      [
        { operation: 'asr', engine: 'asr', outcome: 'ok', firstMs: 41_100, warmMs: 2_100, detail: '3 segments' },
        { operation: 'case-ocr', engine: 'ocr', outcome: 'ok', firstMs: 1_400, warmMs: 900, detail: '' },
      ],
      { asr: { state: 'ready', device: 'gpu: CUDA0' } },
      5_000,
      false,
    );
    expect(result.exitCode).toBe(EXIT.slowFirstCall);
    expect(result.lines[1]).toMatch(/^asr\s+asr\s+gpu: CUDA0\s+SLOW-FIRST\s+41\.1 s\s+2\.1 s\s+3 segments$/);
    expect(result.lines).toContain(
      'asr: the first call took 41.1 s, a warm one 2.1 s: likely a JIT compile (CUDA code without real code for this GPU: run mdt-gateway check-gpu) or a cold model load',
    );
  });
});
