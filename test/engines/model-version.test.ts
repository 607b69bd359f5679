import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { modelFingerprint, modelLabel } from '../../src/engines/model-version.js';

const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe('model version', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llm-model-version-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('hashes the file once and remembers it next to the model, keyed by size and mtime', async () => {
    const path = join(dir, 'm.gguf');
    writeFileSync(path, 'first');
    const first = await modelFingerprint(path);
    expect(first.sha256).toBe(sha('first'));
    expect(JSON.parse(readFileSync(`${path}.sha256`, 'utf8'))).toEqual(first);

    // A sidecar that matches size and mtime is trusted (this one lies, to prove it is read).
    writeFileSync(`${path}.sha256`, JSON.stringify({ ...first, sha256: 'a'.repeat(64) }));
    expect((await modelFingerprint(path)).sha256).toBe('a'.repeat(64));

    // A replaced file (other size or mtime) is hashed again.
    writeFileSync(path, 'second!');
    utimesSync(path, new Date(), new Date(Date.now() + 5_000));
    expect((await modelFingerprint(path)).sha256).toBe(sha('second!'));
  });

  it('uses what the supervisor remembers, and hashes each time when the folder is read-only', async () => {
    const readOnly = join(dir, 'ro');
    mkdirSync(readOnly);
    const path = join(readOnly, 'm.gguf');
    writeFileSync(path, 'weights');
    chmodSync(readOnly, 0o555);
    try {
      const fingerprint = await modelFingerprint(path);
      expect(fingerprint.sha256).toBe(sha('weights'));
      if (process.getuid?.() !== 0) expect(existsSync(`${path}.sha256`)).toBe(false); // root may write anyway
      const remembered = { ...fingerprint, sha256: 'b'.repeat(64) };
      expect(await modelFingerprint(path, remembered)).toBe(remembered);
    } finally {
      chmodSync(readOnly, 0o755);
    }
  });

  it('labels the model as <file name>@<12 hex>', () => {
    expect(modelLabel('/models/qwen.gguf', 'abcdef0123456789'.repeat(4))).toBe('qwen.gguf@abcdef012345');
  });
});
