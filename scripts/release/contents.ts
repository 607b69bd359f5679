/**
 * What a release artefact holds and what it must not: the parts of the production dependencies
 * that only another platform, another GPU API or a build from source needs are removed, and the
 * unpacked tree is then checked file by file (every native binary an x86-64 ELF file; on the cpu
 * target none for CUDA or Vulkan) and against its size budget.
 */
import { lstatSync, openSync, readSync, closeSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';

export type Target = 'cpu' | 'cuda';
export const TARGETS: readonly Target[] = ['cpu', 'cuda'];

/** Unpacked size budgets (bytes); the cpu one is checked in CI (operator's guide §4.1). */
export const SIZE_BUDGET: Record<Target, number> = { cpu: 600e6, cuda: 2_500e6 };

/** The one local build of node-llama-cpp a cuda artefact carries (scripts/setup/build-llama-addon.sh). */
export const LLAMA_CUDA_BUILD = 'node-llama-cpp/llama/localBuilds/linux-x64-cuda';

/**
 * Paths under node_modules/ to remove, as globs of one `*` per segment: each names what it is
 * for. Kept are the linux-x64 binaries the gateway loads, JavaScript, data and licences.
 */
export function unwantedPaths(target: Target): string[] {
  return [
    // node-llama-cpp: prebuilt binaries for other platforms and GPU APIs (the cpu target runs
    // @node-llama-cpp/linux-x64; the cuda target its own CUDA build, which needs that too for LLM_GPU=off).
    '@node-llama-cpp/linux-arm64',
    '@node-llama-cpp/linux-armv7l',
    '@node-llama-cpp/linux-x64-vulkan',
    '@node-llama-cpp/linux-x64-cuda',
    '@node-llama-cpp/linux-x64-cuda-ext',
    '@node-llama-cpp/mac-*',
    '@node-llama-cpp/win-*',
    // ... and what it builds from: the llama.cpp source bundle and its clone, the addon's source,
    // CMake files and toolchains for every platform, the build folders; the placeholders of
    // binaries that moved to the @node-llama-cpp packages.
    'node-llama-cpp/llama/gitRelease.bundle',
    'node-llama-cpp/llama/llama.cpp',
    'node-llama-cpp/llama/addon',
    'node-llama-cpp/llama/cmake',
    'node-llama-cpp/llama/toolchains',
    'node-llama-cpp/llama/profiles',
    'node-llama-cpp/llama/patches',
    'node-llama-cpp/llama/xpack',
    'node-llama-cpp/llama/CMakeLists.txt',
    'node-llama-cpp/bins/_*.moved.txt',
    ...(target === 'cpu' ? ['node-llama-cpp/llama/localBuilds', 'node-llama-cpp/llama/lastBuild.json', 'node-llama-cpp/llama/llama.cpp.info.json'] : []),
    // an optional peer of node-llama-cpp, used only by its CLI
    'typescript',
    // onnxruntime-node ships every platform's runtime in one package
    'onnxruntime-node/bin/*/darwin',
    'onnxruntime-node/bin/*/win32',
    'onnxruntime-node/bin/*/linux/arm64',
    ...(target === 'cpu' ? ['onnxruntime-node/bin/*/linux/x64/libonnxruntime_providers_cuda.so', 'onnxruntime-node/bin/*/linux/x64/libonnxruntime_providers_tensorrt.so'] : []),
    // sharp and @napi-rs/canvas: other libc and CPU variants, where npm installed any
    '@img/sharp-linuxmusl-*',
    '@img/sharp-libvips-linuxmusl-*',
    '@img/sharp-linux-arm*',
    '@img/sharp-libvips-linux-arm*',
    '@img/sharp-darwin-*',
    '@img/sharp-libvips-darwin-*',
    '@img/sharp-win32-*',
    '@napi-rs/canvas-linux-x64-musl',
    '@napi-rs/canvas-linux-arm*',
    '@napi-rs/canvas-darwin-*',
    '@napi-rs/canvas-win32-*',
    // better-sqlite3: the SQLite source and the objects it was compiled from (the addon stays)
    'better-sqlite3/deps',
    'better-sqlite3/src',
    'better-sqlite3/build/Release/obj.target',
    'better-sqlite3/build/Release/obj',
    'better-sqlite3/build/Release/.deps',
    'better-sqlite3/build/Release/test_extension.node',
    'better-sqlite3/build/deps',
    // nodejs-whisper: the whisper.cpp source whisper-cli was built from (its licence is kept in licenses/)
    'nodejs-whisper/cpp',
  ];
}

/** The paths under `root` that match a glob of unwantedPaths (one `*` matches within a segment). */
export function matchPaths(root: string, glob: string): string[] {
  let found = [root];
  for (const segment of glob.split('/')) {
    const pattern = new RegExp(`^${segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
    found = found.flatMap((dir) => {
      if (!existsSync(dir) || !lstatSync(dir).isDirectory()) return [];
      return readdirSync(dir)
        .filter((name) => pattern.test(name))
        .map((name) => join(dir, name));
    });
  }
  return found;
}

/**
 * Folders of which only some entries stay: the cuda artefact's own LLM build keeps what
 * node-llama-cpp loads (Release/, buildDone.status), none of the CMake tree it was built in.
 */
export function keptEntries(target: Target): Record<string, string[]> {
  return target === 'cuda' ? { 'node-llama-cpp/llama/localBuilds': ['linux-x64-cuda'], [LLAMA_CUDA_BUILD]: ['Release', 'buildDone.status'] } : {};
}

export function removeUnwanted(nodeModules: string, target: Target): string[] {
  const removed = unwantedPaths(target).flatMap((glob) => matchPaths(nodeModules, glob));
  for (const [dir, keep] of Object.entries(keptEntries(target))) {
    const path = join(nodeModules, dir);
    if (existsSync(path)) removed.push(...readdirSync(path).filter((name) => !keep.includes(name)).map((name) => join(path, name)));
  }
  for (const path of removed) rmSync(path, { recursive: true, force: true });
  return removed.map((path) => relative(nodeModules, path));
}

const EM_X86_64 = 62;

/** What a file's first bytes say it is: an ELF file and its machine, another executable format, or neither. */
export function nativeKind(path: string): 'elf-x86-64' | 'elf-other' | 'mach-o' | 'pe' | undefined {
  const header = Buffer.alloc(20);
  const fd = openSync(path, 'r');
  let read: number;
  try {
    read = readSync(fd, header, 0, 20, 0);
  } finally {
    closeSync(fd);
  }
  if (read >= 20 && header.readUInt32BE(0) === 0x7f454c46) return header.readUInt16LE(18) === EM_X86_64 ? 'elf-x86-64' : 'elf-other';
  if (read >= 4 && [0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(header.readUInt32BE(0))) return 'mach-o';
  if (read >= 2 && header.readUInt16BE(0) === 0x4d5a && /\.(dll|exe|node|sys)$/i.test(path)) return 'pe';
  return undefined;
}

export interface Inspection {
  bytes: number;
  files: number;
  problems: string[];
}

/** Walks the unpacked tree: its size, and every native binary that does not belong in `target`. */
export function inspectTree(root: string, target: Target, budget = SIZE_BUDGET[target]): Inspection {
  const problems: string[] = [];
  let bytes = 0;
  let files = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(path);
        continue;
      }
      if (!entry.isFile()) continue;
      files++;
      bytes += lstatSync(path).size;
      const name = relative(root, path);
      const kind = nativeKind(path);
      if (kind === undefined) {
        if (/\.(dll|dylib|exe)$/i.test(name)) problems.push(`${name}: a Windows or macOS binary`);
        continue;
      }
      if (kind !== 'elf-x86-64') problems.push(`${name}: ${kind}, not a linux-x64 binary`);
      else if (target === 'cpu' && /cuda|cublas|cudnn|vulkan|tensorrt/i.test(name)) problems.push(`${name}: a GPU binary in the cpu artefact`);
      else if (/vulkan/i.test(name)) problems.push(`${name}: a Vulkan binary`);
    }
  };
  walk(root);
  if (bytes > budget) problems.push(`${(bytes / 1e6).toFixed(0)} MB unpacked, over the ${target} budget of ${budget / 1e6} MB`);
  return { bytes, files, problems };
}
