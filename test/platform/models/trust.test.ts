import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTestModel } from '../../support/models/make-test-model.js';
import { loadConfig } from '../../../src/config/index.js';
import { expectedHash, expectedHashOf, parseChecksums } from '../../../src/platform/models/index.js';
import { startGateway } from '../../support/gateway.js';
import { TEST_MODELS_DIR } from '../../support/paths.js';

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

  it('answers a conflict, naming both lists, when the manifest and SHA256SUMS disagree', async () => {
    const path = join(dir, 'tiny.gguf');
    await writeFile(join(dir, 'SHA256SUMS'), `${sha256}  tiny.gguf\n`);
    await manifest('tiny.gguf', A);
    expect(expectedHashOf(config(), path)).toEqual({
      conflict: `tiny.gguf: ${join(dir, 'manifest.json')} lists sha256 aaaaaaaaaaaa…, but ${join(dir, 'SHA256SUMS')} lists ${sha256.slice(0, 12)}…`,
    });
    await manifest('tiny.gguf', null);
  });

  it('is one rule: the manifest, else SHA256SUMS, else nothing; a conflict when both differ', () => {
    const manifestHash = { sha256: A, source: 'manifest.json' };
    const recorded = { sha256: 'b'.repeat(64), source: 'SHA256SUMS' };
    expect(expectedHash('m.gguf', manifestHash, undefined)).toBe(manifestHash);
    expect(expectedHash('m.gguf', undefined, recorded)).toBe(recorded);
    expect(expectedHash('m.gguf', manifestHash, { ...recorded, sha256: A })).toBe(manifestHash);
    expect(expectedHash('m.gguf', undefined, undefined)).toBeUndefined();
    expect(expectedHash('m.gguf', manifestHash, recorded)).toEqual({
      conflict: 'm.gguf: manifest.json lists sha256 aaaaaaaaaaaa…, but SHA256SUMS lists bbbbbbbbbbbb…',
    });
  });

  it('reads sha256sum lines, text and binary mode', () => {
    expect(parseChecksums(`${A}  a.bin\n${'b'.repeat(64)} *b c.bin\nnoise\n`)).toEqual(
      new Map([
        ['a.bin', A],
        ['b c.bin', 'b'.repeat(64)],
      ]),
    );
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
    const deadline = Date.now() + 30_000;
    while (gateway.app.engineStatus('llm').state === 'starting' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
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

  it('refuses a model whose manifest entry and SHA256SUMS disagree, even when it matches one of them', async () => {
    await manifest('tiny.gguf', A);
    const gateway = await gatewayWith(`${sha256}  tiny.gguf\n`);
    try {
      const { state, reason } = gateway.app.engineStatus('llm');
      expect(state).toBe('failed');
      expect(reason).toContain(`${join(dir, 'manifest.json')} lists sha256 aaaaaaaaaaaa…, but ${join(dir, 'SHA256SUMS')} lists ${sha256.slice(0, 12)}…`);
    } finally {
      await gateway.close();
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
