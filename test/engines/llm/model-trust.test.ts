import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTestModel } from '../../../scripts/lib/models/make-test-model.js';
import { startGateway } from '../../../scripts/lib/gateway.js';
import { TEST_MODELS_DIR } from '../../../scripts/lib/paths.js';
import { settledStatus } from '../../../src/engines/readiness.js';

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

const manifest = (file: string, hash: string | null) =>
  writeFile(join(dir, 'manifest.json'), JSON.stringify({ schema: 1, profiles: {}, models: [{ id: 'x', file, sha256: hash }] }));

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
      expect(gateway.app.engineStatus('llm')).toMatchObject({ state: 'failed', reason: expect.stringContaining('MODELS_VERIFY=false') });
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

  it('loads a mismatched model, unverified, with MODELS_VERIFY=false', async () => {
    const gateway = await gatewayWith(`${A}  tiny.gguf\n`, { MODELS_VERIFY: 'false' });
    try {
      expect(gateway.app.engineStatus('llm')).toMatchObject({ state: 'ready', verified: false });
    } finally {
      await gateway.close();
    }
  });
});
