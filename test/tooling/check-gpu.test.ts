/**
 * bin/mdt-check-gpu without a GPU: stand-ins for cuobjdump, nvidia-smi and whisper-cli on the
 * PATH play an H200 and the binaries' contents, and a whisper-cli that is slow only while the
 * CUDA JIT cache is empty plays a binary with PTX alone. The real run is on a lent GPU
 * (docs/operators-guide.md §3.1 has its table).
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/lib/paths.js';

const run = promisify(execFile);
let dir: string;

function tool(name: string, script: string): void {
  writeFileSync(join(dir, 'bin', name), `#!/bin/sh\n${script}\n`);
  chmodSync(join(dir, 'bin', name), 0o755);
}

/** cuobjdump that lists the given SASS and PTX architectures for every file. */
function cuobjdump(sass: string[], ptx: string[]): void {
  tool(
    'cuobjdump',
    [
      'case "$1" in',
      `  --list-elf) ${sass.map((sm, i) => `echo "ELF file    ${i + 1}: x.${i + 1}.${sm}.cubin";`).join(' ') || 'true'} ;;`,
      `  --list-ptx) ${ptx.map((sm, i) => `echo "PTX file    ${i + 1}: x.${i + 1}.${sm}.ptx";`).join(' ') || 'true'} ;;`,
      'esac',
    ].join('\n'),
  );
}

async function check(args: string[] = [], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  const result = await run('bash', [join(REPO_ROOT, 'bin/mdt-check-gpu'), ...args], {
    env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}`, WHISPER_BIN: join(dir, 'bin', 'whisper-cli'), CUDA_ARCHITECTURES: '', ...env },
  }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
  );
  return result;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'check-gpu-'));
  mkdirSync(join(dir, 'bin'));
  tool('nvidia-smi', 'echo "NVIDIA H200, 9.0, 580.159.04"');
  tool('whisper-cli', 'exit 0');
  writeFileSync(join(dir, 'model.bin'), 'weights');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('mdt-check-gpu', () => {
  it('passes a whisper-cli with real code for every GPU of the list and a first call as fast as a warm one', async () => {
    cuobjdump(['sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90', 'sm_120a'], []);
    const { code, out } = await check(['--whisper-model', join(dir, 'model.bin')]);
    expect(out).toContain('GPU: NVIDIA H200, 9.0, 580.159.04 (sm_90)');
    expect(out).toMatch(/whisper-cli\s+sm_75 sm_80 sm_86 sm_89 sm_90 sm_120a\s+-/);
    expect(out).toMatch(/whisper-cli \(a recording\)\s+first\s+[\d.]+ s\s+warm\s+[\d.]+ s/);
    expect(out).toContain('check-gpu: passed');
    expect(code).toBe(0);
  });

  it('fails a binary with only PTX for this GPU, naming what is missing', async () => {
    cuobjdump(['sm_86', 'sm_89', 'sm_120a'], ['sm_75', 'sm_80', 'sm_90']);
    const { code, out } = await check();
    expect(out).toContain('FAIL: whisper-cli has no real code for sm_90');
    expect(out).toContain('FAIL: whisper-cli has no real code for this GPU (sm_90): every process start JIT-compiles its PTX');
    expect(out).toContain('FAIL: whisper-cli has no real code for sm_75');
    expect(code).toBe(1);
  });

  it('holds the binaries to a narrowed list (CUDA_ARCHITECTURES)', async () => {
    cuobjdump(['sm_90'], []);
    const { code, out } = await check([], { CUDA_ARCHITECTURES: '90-real' });
    expect(out).toContain('required real code: sm_90');
    expect(code).toBe(0);
  });

  it('fails a first start slower than a warm one: the JIT compile an empty cache shows', async () => {
    cuobjdump(['sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90', 'sm_120a'], []);
    // Slow only while the JIT cache is empty, as a PTX-only binary is: it fills the cache.
    tool('whisper-cli', '[ -e "$CUDA_CACHE_PATH/jit" ] && exit 0; sleep 1.5; touch "$CUDA_CACHE_PATH/jit"');
    const { code, out } = await check(['--whisper-model', join(dir, 'model.bin'), '--slow-first', '1']);
    expect(out).toMatch(/FAIL: whisper-cli \(a recording\): the first start is [\d.]+ s slower than a warm one: a JIT compile/);
    expect(code).toBe(1);
  });

  it('without cuobjdump or a GPU says what it could not read, and passes', async () => {
    rmSync(join(dir, 'bin', 'nvidia-smi'));
    const { code, out } = await check();
    expect(out).toContain('GPU: none found (nvidia-smi); only the binaries are read');
    expect(out).toContain('cuobjdump not found');
    expect(out).toContain('no GPU: no timing');
    expect(code).toBe(0);
  });
});
