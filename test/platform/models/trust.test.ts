import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { parseChecksums } from '../../../src/platform/models/checksums.js';
import { checkExpectedHash, expectedHashOf, ModelTrustConflict } from '../../../src/platform/models/trust.js';

let dir: string;
/** The model file's own hash; the rule reads only the lists, never the file. */
const sha256 = 'c'.repeat(64);
const A = 'a'.repeat(64);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'model-trust-'));
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
    expect(expectedHashOf(config({ MODELS_VERIFY: 'false' }), path)).toBeUndefined();
    await manifest('tiny.gguf', null);
  });

  it('refuses a file the manifest and SHA256SUMS disagree about, naming both (the models tool applies the same rule)', async () => {
    const path = join(dir, 'tiny.gguf');
    await manifest('tiny.gguf', A);
    await writeFile(join(dir, 'SHA256SUMS'), `${sha256}  tiny.gguf\n`);
    expect(() => expectedHashOf(config(), path)).toThrow(ModelTrustConflict);
    expect(() => expectedHashOf(config(), path)).toThrow(`${join(dir, 'manifest.json')} vouches for sha256 aaaaaaaaaaaa…, but ${join(dir, 'SHA256SUMS')}`);
    expect(expectedHashOf(config({ MODELS_VERIFY: 'false' }), path)).toBeUndefined();
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
      /x.gguf has sha256 bbbbbbbbbbbb…, but SHA256SUMS expects aaaaaaaaaaaa….*MODELS_VERIFY=false/,
    );
    expect(checkExpectedHash('/m/x.gguf', A, { sha256: A, source: 'SHA256SUMS' })).toBe(true);
    expect(checkExpectedHash('/m/x.gguf', A, undefined)).toBe(false);
  });
});
