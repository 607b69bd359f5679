/**
 * The CUDA builds' own configuration, read from the scripts that build them (and the GPU image
 * that runs those scripts): which GPU architectures get real machine code. An architecture with
 * only PTX, or none, costs a JIT compile at every process start or cannot run at all; a GPU was
 * lent to check the built binary once (cuobjdump, docs/operators-guide.md §3.1), CI has none.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/lib/paths.js';

const HOSPITAL_GPUS = ['75', '80', '86', '89', '90', '120a'];

function script(name: string, env: Record<string, string> = {}): string[] {
  const { CUDA_ARCHITECTURES: _unset, ...inherited } = process.env;
  return execFileSync('bash', [join(REPO_ROOT, 'scripts/setup', name), '--print-flags'], { encoding: 'utf8', env: { ...inherited, ...env } })
    .trim()
    .split('\n');
}

/** CMAKE_CUDA_ARCHITECTURES entries of a flag list, by kind. */
function architectures(flags: string[]): { real: string[]; virtual: string[] } {
  const list = flags.find((flag) => flag.includes('CMAKE_CUDA_ARCHITECTURES='))?.split('=')[1]?.split(';') ?? [];
  return {
    real: list.filter((a) => a.endsWith('-real')).map((a) => a.replace('-real', '')),
    virtual: list.filter((a) => !a.endsWith('-real')),
  };
}

describe('the CUDA architectures of the builds', () => {
  it('whisper-cli with CUDA: real code for every GPU generation hospitals run, no PTX to JIT', () => {
    const flags = script('build-whisper.sh', { WHISPER_CUDA: 'on', WHISPER_NATIVE: 'off' });
    expect(architectures(flags)).toEqual({ real: HOSPITAL_GPUS, virtual: [] });
    expect(flags).toContain('-DGGML_NATIVE=OFF');
  });

  it("the LLM runtime's CUDA addon: the same list, passed as node-llama-cpp's CMake option", () => {
    const flags = script('build-llama-addon.sh');
    expect(flags).toEqual([`NODE_LLAMA_CPP_CMAKE_OPTION_CMAKE_CUDA_ARCHITECTURES=${HOSPITAL_GPUS.map((a) => `${a}-real`).join(';')}`]);
  });

  it('one setting narrows or widens both (CUDA_ARCHITECTURES)', () => {
    expect(architectures(script('build-whisper.sh', { WHISPER_CUDA: 'on', CUDA_ARCHITECTURES: '90-real' })).real).toEqual(['90']);
    expect(script('build-llama-addon.sh', { CUDA_ARCHITECTURES: '70-real;90-real' })).toEqual(['NODE_LLAMA_CPP_CMAKE_OPTION_CMAKE_CUDA_ARCHITECTURES=70-real;90-real']);
  });

  it('a CPU build of whisper-cli names no CUDA architecture', () => {
    expect(architectures(script('build-whisper.sh', { WHISPER_CUDA: 'off' })).real).toEqual([]);
  });

  it('the GPU image passes its build argument to both builds and keeps a JIT cache on the data volume', () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile.gpu'), 'utf8');
    expect(dockerfile).toMatch(/^ARG CUDA_ARCHITECTURES=$/m);
    expect(dockerfile).toMatch(/CUDA_ARCHITECTURES="\$CUDA_ARCHITECTURES"[^\n]*npm run release -- --target cuda/);
    expect(dockerfile).toMatch(/CUDA_CACHE_PATH=\/data\/cuda-cache\b/);
    expect(dockerfile).toMatch(/CUDA_CACHE_MAXSIZE=4294967296\b/);
  });
});
