/**
 * One release artefact per target, what a hospital receives and what the images are made of:
 *
 *   npm run release -- --target cpu|cuda --out <dir> [--ocr-cuda on|off]
 *
 * writes <dir>/mdt-ai-gateway-<version>-linux-x64-<target>.tar.gz and its line in
 * <dir>/SHA256SUMS. The archive unpacks into one folder: bin/mdt-gateway (start, selftest, models,
 * receiver, check-gpu), the compiled gateway (dist/, with the self-test's samples), the production
 * dependencies with linux-x64 native binaries only (scripts/release/contents.ts), whisper-cli
 * built for the target (portable across x86-64 CPUs with AVX2; cuda: real code for
 * CUDA_ARCHITECTURES), the cuda target's LLM runtime built from source for the same list, the
 * PP-OCR models prepared as the engine runs them, the models manifest, licences and release.json
 * (what was built, how).
 *
 * Runs from a checkout with its dependencies installed (npm install): cmake and a C++ compiler,
 * for cuda also nvcc. The cuda target with --ocr-cuda on (its default) takes onnxruntime's CUDA
 * provider from Microsoft's NuGet package (onnxruntime-node's own installer), the one download
 * here from outside the npm registry.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readChecksums, sha256OfFile, writeChecksums } from '../src/platform/models/checksums.js';
import { REPO_ROOT } from './lib/paths.js';
import { inspectTree, removeUnwanted, TARGETS, type Target } from './release/contents.js';

const { values } = parseArgs({
  options: { target: { type: 'string' }, out: { type: 'string' }, 'ocr-cuda': { type: 'string', default: 'on' } },
});
const target = values.target as Target;
if (!TARGETS.includes(target) || !values.out) {
  console.error('usage: npm run release -- --target cpu|cuda --out <dir> [--ocr-cuda on|off]');
  process.exit(64);
}
const out = resolve(values.out);
const started = Date.now();
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; version: string; license: string; engines: object };
const name = `${pkg.name}-${pkg.version}-linux-x64-${target}`;
const work = join(REPO_ROOT, '.build', 'release', target);
const stage = join(work, name);

const step = (what: string) => console.log(`release: ${what} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
const run = (command: string, args: string[], env: Record<string, string> = {}) =>
  execFileSync(command, args, { cwd: REPO_ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
const text = (command: string, args: string[], env: Record<string, string> = {}) =>
  execFileSync(command, args, { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, ...env } }).trim();

step(`building ${name}`);
run('npm', ['run', '--silent', 'build']);

step('whisper-cli for the target');
const whisperOut = join(work, 'whisper');
const whisperEnv = { WHISPER_OUT: whisperOut, WHISPER_NATIVE: 'off', WHISPER_CUDA: target === 'cuda' ? 'on' : 'off' };
run('bash', ['scripts/setup/build-whisper.sh'], whisperEnv);
const whisperFlags = text('bash', ['scripts/setup/build-whisper.sh', '--print-flags'], whisperEnv);

const cudaArchitectures = target === 'cuda' ? text('bash', ['-c', '. scripts/setup/cuda-architectures.sh && cuda_architectures']) : undefined;
if (target === 'cuda') {
  step('the LLM runtime with CUDA, from source');
  run('bash', ['scripts/setup/build-llama-addon.sh']);
  if (values['ocr-cuda'] === 'on') {
    step("onnxruntime's CUDA provider (NuGet)");
    run('node', ['node_modules/onnxruntime-node/script/install'], { ONNXRUNTIME_NODE_INSTALL: 'cuda12' });
  }
}

step('the tree');
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
for (const path of ['dist', 'bin', 'LICENSE', 'models/manifest.json', 'docs/operators-guide.md']) {
  cpSync(join(REPO_ROOT, path), join(stage, path), { recursive: true, verbatimSymlinks: true });
}
// "type": "module" makes dist/ ESM; dependencies and engines say what the tree holds and needs.
writeFileSync(
  join(stage, 'package.json'),
  `${JSON.stringify({ name: pkg.name, version: pkg.version, private: true, type: 'module', license: pkg.license, engines: pkg.engines }, null, 2)}\n`,
);
mkdirSync(join(stage, '.build', 'whisper', 'bin'), { recursive: true });
cpSync(join(whisperOut, 'bin', 'whisper-cli'), join(stage, '.build', 'whisper', 'bin', 'whisper-cli'));
// The PP-OCR models as the engine runs them, prepared by the build above (prepared.json lists their hashes).
cpSync(join(REPO_ROOT, '.build', 'ppocr'), join(stage, '.build', 'ppocr'), { recursive: true });

// Production dependencies, as npm resolved them: every package folder npm lists without dev ones.
const production = text('npm', ['ls', '--omit=dev', '--all', '--parseable'])
  .split('\n')
  .map((path) => path.slice(REPO_ROOT.length + 1))
  .filter((path) => path.startsWith('node_modules/') && !/node_modules\/.*node_modules\//.test(path));
execFileSync('cp', ['-a', '--parents', ...production, stage], { cwd: REPO_ROOT });
mkdirSync(join(stage, 'licenses'), { recursive: true });
cpSync(join(REPO_ROOT, 'node_modules/nodejs-whisper/cpp/whisper.cpp/LICENSE'), join(stage, 'licenses', 'whisper.cpp-LICENSE'));
writeFileSync(join(stage, 'licenses', 'THIRD-PARTY.md'), thirdPartyList(production));
const removed = removeUnwanted(join(stage, 'node_modules'), target);
console.log(`release: removed ${removed.length} paths for other platforms, GPU APIs and builds from source`);

const commit = (() => {
  try {
    return text('git', ['rev-parse', 'HEAD']) + (text('git', ['status', '--porcelain']) ? '+changes' : '');
  } catch {
    return 'unknown';
  }
})();
writeFileSync(
  join(stage, 'release.json'),
  `${JSON.stringify(
    {
      name: pkg.name,
      version: pkg.version,
      target,
      platform: 'linux-x64',
      commit,
      built_at: new Date().toISOString(),
      node_required: (pkg.engines as { node?: string }).node,
      whisper_cmake_flags: whisperFlags.split('\n').filter((flag) => !flag.startsWith('-DCMAKE_CUDA_COMPILER')),
      ...(cudaArchitectures ? { cuda_architectures: cudaArchitectures } : {}),
      ...(target === 'cuda' ? { ocr_cuda: values['ocr-cuda'] } : {}),
    },
    null,
    2,
  )}\n`,
);

step('checking the tree');
const inspection = inspectTree(stage, target);
console.log(`release: ${inspection.files} files, ${(inspection.bytes / 1e6).toFixed(0)} MB unpacked`);
if (inspection.problems.length > 0) {
  for (const problem of inspection.problems) console.error(`release: ${problem}`);
  process.exit(1);
}

step('the archive');
mkdirSync(out, { recursive: true });
const archive = join(out, `${name}.tar.gz`);
execFileSync('tar', ['-C', work, '--owner=0', '--group=0', '--numeric-owner', '--sort=name', '-czf', archive, name]);
const sums = await readChecksums(out);
sums.set(basename(archive), await sha256OfFile(archive));
await writeChecksums(out, sums);
step(`${archive}: ${(statSync(archive).size / 1e6).toFixed(0)} MB, ${(inspection.bytes / 1e6).toFixed(0)} MB unpacked; ${join(out, 'SHA256SUMS')}`);

/** Each package of the tree with its version and declared licence (each keeps its own licence file). */
function thirdPartyList(packages: string[]): string {
  const rows = packages.flatMap((path) => {
    const file = join(REPO_ROOT, path, 'package.json');
    if (!existsSync(file)) return [];
    const meta = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string; license?: unknown };
    return [`| ${meta.name ?? path} | ${meta.version ?? '?'} | ${typeof meta.license === 'string' ? meta.license : 'see its folder'} |`];
  });
  return [
    '# Third-party software in this release',
    '',
    'Each package keeps its licence file in its folder under node_modules/. whisper-cli is built from',
    'whisper.cpp (MIT, licenses/whisper.cpp-LICENSE); the LLM runtime is llama.cpp (MIT) through node-llama-cpp.',
    '',
    '| package | version | licence |',
    '|---|---|---|',
    ...rows.sort(),
    '',
  ].join('\n');
}
