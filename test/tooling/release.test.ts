/**
 * The release's rules on a tree made here: what is stripped for each target, and what the
 * check refuses (a native binary for another platform or, in the cpu artefact, a GPU API; a tree
 * over its size budget). CI builds the real cpu artefact and unpacks it (scripts/check-artefact.sh).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inspectTree, nativeKind, removeUnwanted, SIZE_BUDGET } from '../../scripts/release/contents.js';

/** The first 20 bytes of an ELF file for a machine (62 x86-64, 183 aarch64), then padding. */
const elf = (machine: number) => {
  const header = Buffer.alloc(64);
  header.writeUInt32BE(0x7f454c46, 0);
  header.writeUInt16LE(machine, 18);
  return header;
};
const MACH_O = Buffer.from([0xcf, 0xfa, 0xed, 0xfe, 0, 0, 0, 0]);
const PE = Buffer.from('MZ\x90\x00');

let root: string;
const put = (path: string, bytes: Buffer | string = 'x') => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), bytes);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'release-test-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('nativeKind', () => {
  it('tells an x86-64 ELF file from other machines and formats', () => {
    put('a.so', elf(62));
    put('b.so', elf(183));
    put('c.dylib', MACH_O);
    put('d.node', PE);
    put('e.js', 'MZ is not a binary here');
    expect(['a.so', 'b.so', 'c.dylib', 'd.node', 'e.js'].map((f) => nativeKind(join(root, f)))).toEqual([
      'elf-x86-64',
      'elf-other',
      'mach-o',
      'pe',
      undefined,
    ]);
  });
});

describe('removeUnwanted', () => {
  function nodeModulesTree() {
    put('node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libllama.so', elf(62));
    put('node_modules/@node-llama-cpp/linux-x64-cuda/bins/linux-x64-cuda/libggml-cuda.so', elf(62));
    put('node_modules/@node-llama-cpp/linux-arm64/bins/linux-arm64/libllama.so', elf(183));
    put('node_modules/node-llama-cpp/llama/gitRelease.bundle');
    put('node_modules/node-llama-cpp/llama/localBuilds/linux-x64-cuda/Release/libggml-cuda.so', elf(62));
    put('node_modules/node-llama-cpp/llama/localBuilds/linux-x64-cuda/buildDone.status');
    put('node_modules/node-llama-cpp/llama/localBuilds/linux-x64-cuda/CMakeCache.txt');
    put('node_modules/node-llama-cpp/llama/localBuilds/linux-x64/Release/llama-addon.node', elf(62));
    put('node_modules/node-llama-cpp/dist/index.js');
    put('node_modules/node-llama-cpp/llama/toolchains/win32.host-x64.target-arm64.cmake');
    put('node_modules/node-llama-cpp/bins/_win-x64-cuda.moved.txt');
    put('node_modules/node-llama-cpp/llama/grammars/json.gbnf');
    put('node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1', elf(62));
    put('node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime_providers_cuda.so', elf(62));
    put('node_modules/onnxruntime-node/bin/napi-v6/darwin/arm64/libonnxruntime.dylib', MACH_O);
    put('node_modules/onnxruntime-node/bin/napi-v6/win32/x64/onnxruntime.dll', PE);
    put('node_modules/better-sqlite3/build/Release/better_sqlite3.node', elf(62));
    put('node_modules/better-sqlite3/build/Release/obj.target/deps/sqlite3.a');
    put('node_modules/better-sqlite3/deps/sqlite3/sqlite3.c');
    put('node_modules/nodejs-whisper/cpp/whisper.cpp/CMakeLists.txt');
    put('node_modules/nodejs-whisper/package.json');
  }

  it('cpu: keeps the linux-x64 CPU binaries and removes other platforms, GPU APIs and build sources', () => {
    nodeModulesTree();
    removeUnwanted(join(root, 'node_modules'), 'cpu');
    const present = (path: string) => existsSync(join(root, 'node_modules', path));
    expect(present('@node-llama-cpp/linux-x64/bins/linux-x64/libllama.so')).toBe(true);
    expect(present('onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1')).toBe(true);
    expect(present('better-sqlite3/build/Release/better_sqlite3.node')).toBe(true);
    expect(present('node-llama-cpp/dist/index.js')).toBe(true);
    expect(present('nodejs-whisper/package.json')).toBe(true);
    expect(present('node-llama-cpp/llama/grammars/json.gbnf')).toBe(true);
    for (const gone of [
      'node-llama-cpp/llama/toolchains',
      'node-llama-cpp/bins/_win-x64-cuda.moved.txt',
      '@node-llama-cpp/linux-x64-cuda',
      '@node-llama-cpp/linux-arm64',
      'node-llama-cpp/llama/gitRelease.bundle',
      'node-llama-cpp/llama/localBuilds',
      'onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime_providers_cuda.so',
      'onnxruntime-node/bin/napi-v6/darwin',
      'onnxruntime-node/bin/napi-v6/win32',
      'better-sqlite3/build/Release/obj.target',
      'better-sqlite3/deps',
      'nodejs-whisper/cpp',
    ]) {
      expect(present(gone), gone).toBe(false);
    }
    expect(inspectTree(root, 'cpu').problems).toEqual([]);
  });

  it('cuda: keeps its own LLM build (only what node-llama-cpp loads) and the CUDA provider', () => {
    nodeModulesTree();
    removeUnwanted(join(root, 'node_modules'), 'cuda');
    const present = (path: string) => existsSync(join(root, 'node_modules', path));
    expect(present('node-llama-cpp/llama/localBuilds/linux-x64-cuda/Release/libggml-cuda.so')).toBe(true);
    expect(present('node-llama-cpp/llama/localBuilds/linux-x64-cuda/buildDone.status')).toBe(true);
    expect(present('node-llama-cpp/llama/localBuilds/linux-x64-cuda/CMakeCache.txt')).toBe(false);
    expect(present('node-llama-cpp/llama/localBuilds/linux-x64')).toBe(false);
    expect(present('@node-llama-cpp/linux-x64-cuda')).toBe(false);
    expect(present('onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime_providers_cuda.so')).toBe(true);
    expect(inspectTree(root, 'cuda').problems).toEqual([]);
  });
});

describe('inspectTree', () => {
  it('refuses another platform\'s binary, and a GPU binary in the cpu artefact, naming each', () => {
    put('node_modules/x/arm.so', elf(183));
    put('node_modules/x/mac.dylib', MACH_O);
    put('node_modules/x/win.dll', 'not even a PE header');
    put('node_modules/x/libggml-cuda.so', elf(62));
    put('node_modules/x/libggml-vulkan.so', elf(62));
    const problems = inspectTree(root, 'cpu').problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        'node_modules/x/arm.so: elf-other, not a linux-x64 binary',
        'node_modules/x/mac.dylib: mach-o, not a linux-x64 binary',
        'node_modules/x/win.dll: a Windows or macOS binary',
        'node_modules/x/libggml-cuda.so: a GPU binary in the cpu artefact',
        'node_modules/x/libggml-vulkan.so: a GPU binary in the cpu artefact',
      ]),
    );
    expect(inspectTree(root, 'cuda').problems).toContain('node_modules/x/libggml-vulkan.so: a Vulkan binary');
    expect(inspectTree(root, 'cuda').problems).not.toContain('node_modules/x/libggml-cuda.so: a GPU binary in the cpu artefact');
  });

  it('refuses a tree over its size budget', () => {
    put('big.bin', Buffer.alloc(1024));
    expect(inspectTree(root, 'cpu')).toMatchObject({ bytes: 1024, files: 1, problems: [] });
    expect(inspectTree(root, 'cpu', 1000).problems).toEqual(['0 MB unpacked, over the cpu budget of 0.001 MB']);
    expect(SIZE_BUDGET.cpu).toBe(600e6);
  });
});
