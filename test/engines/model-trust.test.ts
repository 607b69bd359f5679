import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTestModel } from '../../scripts/lib/models/make-test-model.js';
import { loadConfig } from '../../src/config/index.js';
import { expectedHashOf } from '../../src/engines/model-trust.js';
import { parseChecksums } from '../../src/platform/models/checksums.js';
import { ModelTrustConflict } from '../../src/platform/models/trust.js';
import { checkExpectedHash } from '../../src/engines/model-version.js';
import { formatEngineReport } from '../../src/engines/report.js';
import { startGateway } from '../../scripts/lib/gateway.js';
import { TEST_MODELS_DIR } from '../../scripts/lib/paths.js';
import { settledStatus } from '../../src/engines/readiness.js';

let dir: string;
let sha256: string;
const A = 'a'.repeat(64);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'model-trust-'));
  const model = await ensureTestModel({ modelsDir: TEST_MODELS_DIR });
  sha256 = model.sha256;
  await copyFile(model.path, join(dir, 'tiny.gguf'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const config = (env: Record<string, string> = {}) => loadConfig({ MODELS_DIR: dir, MODELS_MANIFEST: join(dir, 'manifest.json'), ...env });
const manifest = (file: string, hash: string | null) =>
  writeFile(join(dir, 'manifest.json'), JSON.stringify({ schema: 1, profiles: {}, models: [{ id: 'x', file, sha256: hash }] }));

describe('which hash a model must have', () => {
  it('takes the manifest first, then SHA256SUMS beside the file, else none', async () => {
    const path = join(dir, 'tiny.gguf');
    await rm(join(dir, 'SHA256SUMS'), { force: true });
    await manifest('other.gguf', A);
    expect(expectedHashOf(config(), path)).toBeUndefined();
    await writeFile(join(dir, 'SHA256SUMS'), `${sha256}  tiny.gguf\n`);
    expect(expectedHashOf(config(), path)).toEqual({ sha256, source: join(dir, 'SHA256SUMS') });
    await manifest('tiny.gguf', sha256);
    expect(expectedHashOf(config(), path)).toEqual({ sha256, source: join(dir, 'manifest.json') });
    await rm(join(dir, 'SHA256SUMS'));
    await manifest('tiny.gguf', A);
    expect(expectedHashOf(config(), path)).toEqual({ sha256: A, source: join(dir, 'manifest.json') });
    expect(expectedHashOf(config({ MODELS_VERIFY: 'off' }), path)).toBeUndefined();
    await manifest('tiny.gguf', null);
  });

  it('refuses a file the manifest and SHA256SUMS disagree about, naming both (the models tool applies the same rule)', async () => {
    const path = join(dir, 'tiny.gguf');
    await manifest('tiny.gguf', A);
    await writeFile(join(dir, 'SHA256SUMS'), `${sha256}  tiny.gguf\n`);
    expect(() => expectedHashOf(config(), path)).toThrow(ModelTrustConflict);
    expect(() => expectedHashOf(config(), path)).toThrow(`${join(dir, 'manifest.json')} vouches for sha256 aaaaaaaaaaaa…, but ${join(dir, 'SHA256SUMS')}`);
    expect(expectedHashOf(config({ MODELS_VERIFY: 'off' }), path)).toBeUndefined();
    await manifest('tiny.gguf', null);
  });

  it('reads sha256sum lines, text and binary mode', () => {
    expect(parseChecksums(`${A}  a.bin\n${'b'.repeat(64)} *b c.bin\nnoise\n`)).toEqual(
      new Map([
        ['a.bin', A],
        ['b c.bin', 'b'.repeat(64)],
      ]),
    );
  });

  it('refuses a mismatch with a way out, and tells verified from unvouched', () => {
    expect(() => checkExpectedHash('/m/x.gguf', 'b'.repeat(64), { sha256: A, source: 'SHA256SUMS' })).toThrow(
      /x.gguf has sha256 bbbbbbbbbbbb…, but SHA256SUMS expects aaaaaaaaaaaa….*MODELS_VERIFY=off/,
    );
    expect(checkExpectedHash('/m/x.gguf', A, { sha256: A, source: 'SHA256SUMS' })).toBe(true);
    expect(checkExpectedHash('/m/x.gguf', A, undefined)).toBe(false);
  });
});

describe('the LLM engine checks its model', () => {
  const gatewayWith = async (sums: string, env: Record<string, string> = {}) => {
    await writeFile(join(dir, 'SHA256SUMS'), sums);
    const gateway = await startGateway({
      MODELS_DIR: dir,
      MODELS_MANIFEST: join(dir, 'manifest.json'),
      LLM_MODEL: 'tiny.gguf',
      LLM_THREADS: '1',
      ...env,
    });
    await settledStatus(() => gateway.app.engineStatus('llm'), 30_000);
    return gateway;
  };

  it('refuses a model whose sha256 differs from SHA256SUMS', async () => {
    const gateway = await gatewayWith(`${A}  tiny.gguf\n`);
    try {
      expect(gateway.app.engineStatus('llm')).toMatchObject({ state: 'failed', reason: expect.stringContaining('MODELS_VERIFY=off') });
    } finally {
      await gateway.close();
    }
  });

  it('loads a matching model as verified, and /readyz shows it with threads and concurrency', async () => {
    const gateway = await gatewayWith(`${sha256}  tiny.gguf\n`, { LLM_PARALLEL: '3' });
    try {
      const ready = (await gateway.app.inject({ method: 'GET', url: '/readyz' })).json<{ engines: Record<string, unknown> }>();
      expect(ready.engines.llm).toMatchObject({ state: 'ready', verified: true, model: `tiny.gguf@${sha256.slice(0, 12)}`, threads: 1, concurrency: 3 });
    } finally {
      await gateway.close();
    }
  });

  it('reports the engine failed, naming both lists, when the manifest and SHA256SUMS disagree', async () => {
    await manifest('tiny.gguf', sha256);
    try {
      const gateway = await gatewayWith(`${A}  tiny.gguf\n`);
      try {
        const ready = (await gateway.app.inject({ method: 'GET', url: '/readyz' })).json<{ engines: Record<string, { state: string; reason: string }> }>();
        expect(ready.engines.llm!.state).toBe('failed');
        expect(ready.engines.llm!.reason).toContain('manifest.json vouches for sha256');
        expect(ready.engines.llm!.reason).toContain('SHA256SUMS');
      } finally {
        await gateway.close();
      }
    } finally {
      await manifest('tiny.gguf', null);
    }
  });

  it('loads a mismatched model, unverified, with MODELS_VERIFY=off', async () => {
    const gateway = await gatewayWith(`${A}  tiny.gguf\n`, { MODELS_VERIFY: 'off' });
    try {
      expect(gateway.app.engineStatus('llm')).toMatchObject({ state: 'ready', verified: false });
    } finally {
      await gateway.close();
    }
  });
});

describe('formatEngineReport', () => {
  it('lines up one row per engine', () => {
    const table = formatEngineReport({
      llm: { state: 'ready', configured: true, model: 'q.gguf@abc', verified: true, device: 'cpu', threads: 2, concurrency: 2 },
      asr: { state: 'unavailable', configured: false, reason: 'WHISPER_MODEL is not set', threads: 2, concurrency: 1 },
    });
    expect(table.split('\n')).toEqual([
      'engine  state        model       sha256    device  threads  concurrency  reason',
      'llm     ready        q.gguf@abc  verified  cpu     2        2',
      'asr     unavailable  -           -         -       2        1            WHISPER_MODEL is not set',
    ]);
  });
});
