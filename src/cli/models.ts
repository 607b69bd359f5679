#!/usr/bin/env node
/**
 * mdt-models: model files for connected and air-gapped sites.
 *
 *   npm run models:fetch -- --profile gpu          download a profile's files into MODELS_DIR (connected machine)
 *   npm run models:bundle -- --profile gpu         one tar with the files, SHA256SUMS and the manifest
 *   npm run models:install -- models-gpu.tar       unpack into MODELS_DIR, every file checked first
 *   npm run models:verify [-- --profile gpu]       hash every model file in MODELS_DIR against its checksum
 *
 * Options: --manifest <path> (default $MODELS_MANIFEST, the shipped models/manifest.json),
 * --models-dir <dir> (default $MODELS_DIR), --out <file> (bundle). Which hash vouches for a file
 * is the gateway's own rule (platform/models/trust.ts). Exit code 0 when done, 1 when refused or failed.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { loadConfig, readConfigOrExit } from '../config/index.js';
import {
  CHECKSUMS_FILE,
  download,
  expectedHash,
  isConflict,
  loadManifest,
  profileModels,
  readChecksums,
  sha256OfFile,
  writeChecksums,
  type ExpectedHash,
  type Manifest,
  type ModelEntry,
  type VouchedHash,
} from '../platform/models/index.js';

const run = promisify(execFile);

interface Context {
  manifest: Manifest;
  manifestPath: string;
  modelsDir: string;
}

const log = (line: string) => process.stdout.write(`${line}\n`);

/** What `file` must hash to per the manifest and the SHA256SUMS at `checksumsSource` (the gateway's rule). */
function expectedFor(context: Context, file: string, sums: Map<string, string>, checksumsSource: string): ExpectedHash | undefined {
  const listed = context.manifest.models.find((m) => m.file === file)?.sha256;
  const recorded = sums.get(file);
  return expectedHash(
    file,
    listed ? { sha256: listed, source: context.manifestPath } : undefined,
    recorded ? { sha256: recorded, source: checksumsSource } : undefined,
  );
}

/** expectedFor, refusing a file whose lists conflict. */
function vouchedHash(context: Context, file: string, sums: Map<string, string>, checksumsSource: string): VouchedHash | undefined {
  const expected = expectedFor(context, file, sums, checksumsSource);
  if (isConflict(expected)) throw new Error(`refusing ${expected.conflict}`);
  return expected;
}

function progressBar(file: string) {
  let last = 0;
  return (received: number, total: number | undefined) => {
    const now = Date.now();
    if (now - last < 500 && received !== total) return;
    last = now;
    const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
    const share = total ? received / total : 0;
    const bar = total ? `[${'#'.repeat(Math.round(share * 30)).padEnd(30)}] ${(share * 100).toFixed(1)}%` : '';
    process.stderr.write(`\r${file} ${bar} ${mib(received)}${total ? ` / ${mib(total)}` : ''} MiB   `);
    if (received === total) process.stderr.write('\n');
  };
}

async function fetchProfile(context: Context, profile: string): Promise<void> {
  await mkdir(context.modelsDir, { recursive: true });
  const sums = await readChecksums(context.modelsDir);
  const checksumsPath = join(context.modelsDir, CHECKSUMS_FILE);
  for (const entry of profileModels(context.manifest, profile)) {
    const dest = join(context.modelsDir, entry.file);
    const expected = vouchedHash(context, entry.file, sums, checksumsPath)?.sha256;
    if (existsSync(dest) && expected && (await sha256OfFile(dest)) === expected) {
      log(`${entry.file}: present and verified`);
      continue;
    }
    const result = await download({
      url: entry.url,
      dest,
      sha256: expected,
      bytes: entry.bytes,
      ...(process.stderr.isTTY ? { onProgress: progressBar(entry.file) } : {}),
    });
    sums.set(entry.file, result.sha256);
    await writeChecksums(context.modelsDir, sums);
    const trust = entry.sha256 ? 'matches the manifest' : `recorded in ${CHECKSUMS_FILE} (the manifest has no hash for it)`;
    const resumed = result.resumedFrom > 0 ? `, resumed at ${result.resumedFrom} bytes` : '';
    log(`${entry.file}: ${result.bytes} bytes, sha256 ${result.sha256} ${trust}${resumed}`);
  }
}

async function bundleProfile(context: Context, profile: string, out: string): Promise<void> {
  const entries = profileModels(context.manifest, profile);
  const sums = await readChecksums(context.modelsDir);
  const bundled = new Map<string, string>();
  for (const entry of entries) {
    const path = join(context.modelsDir, entry.file);
    if (!existsSync(path)) throw new Error(`${entry.file} is not in ${context.modelsDir}; run models:fetch -- --profile ${profile} first`);
    const actual = await sha256OfFile(path);
    const expected = vouchedHash(context, entry.file, sums, join(context.modelsDir, CHECKSUMS_FILE));
    if (expected && actual !== expected.sha256) throw new Error(`${entry.file} does not match its checksum; fetch it again`);
    bundled.set(entry.file, actual);
  }
  const staging = await mkdtemp(join(context.modelsDir, '.bundle-'));
  try {
    await writeChecksums(staging, bundled);
    await run('cp', [context.manifestPath, join(staging, 'manifest.json')]);
    // The checksums and manifest come from the staging folder, the model files from MODELS_DIR.
    const files = entries.map((e) => e.file);
    await run('tar', ['-cf', resolve(out), '-C', staging, CHECKSUMS_FILE, 'manifest.json', '-C', resolve(context.modelsDir), ...files]);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  log(`${out}: ${entries.length} files, ${(await stat(out)).size} bytes, with ${CHECKSUMS_FILE} and manifest.json`);
}

async function installBundle(context: Context, bundle: string): Promise<void> {
  await mkdir(context.modelsDir, { recursive: true });
  const staging = await mkdtemp(join(context.modelsDir, '.install-'));
  try {
    await run('tar', ['-xf', bundle, '-C', staging, '--no-same-owner', '--no-same-permissions']);
    const sums = await readChecksums(staging);
    if (sums.size === 0) throw new Error(`${bundle} has no ${CHECKSUMS_FILE}; it is not a models bundle`);
    const installed = await readChecksums(context.modelsDir);
    for (const [file, sha256] of sums) {
      if (!/^[\w][\w.+-]*$/.test(file)) throw new Error(`${bundle}: refusing the file name ${JSON.stringify(file)}`);
      vouchedHash(context, file, sums, `${bundle}'s ${CHECKSUMS_FILE}`);
      if ((await sha256OfFile(join(staging, file))) !== sha256) throw new Error(`${file}: damaged in transfer (sha256 mismatch); nothing was installed`);
    }
    for (const [file, sha256] of sums) {
      await rename(join(staging, file), join(context.modelsDir, file));
      installed.set(file, sha256);
      log(`${file}: installed, sha256 ${sha256}`);
    }
    await writeChecksums(context.modelsDir, installed);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** One line per model file (ok, MISMATCH, UNKNOWN, CONFLICT, MISSING, absent); false when any is not ok. */
async function verifyModels(context: Context, profile?: string): Promise<boolean> {
  const sums = await readChecksums(context.modelsDir);
  const present = new Set((await readdir(context.modelsDir).catch(() => [])).filter((f) => !f.startsWith('.')));
  const wanted: ModelEntry[] = profile ? profileModels(context.manifest, profile) : [];
  const files = new Set([...sums.keys(), ...context.manifest.models.filter((m) => present.has(m.file)).map((m) => m.file), ...wanted.map((m) => m.file)]);
  if (files.size === 0) log(`no file of the manifest or of ${CHECKSUMS_FILE} in ${context.modelsDir}`);
  let ok = true;
  for (const file of [...files].sort()) {
    if (!present.has(file)) {
      const required = wanted.some((m) => m.file === file);
      ok &&= !required;
      log(`${required ? 'MISSING ' : 'absent  '} ${file}`);
      continue;
    }
    const actual = await sha256OfFile(join(context.modelsDir, file));
    const expected = expectedFor(context, file, sums, join(context.modelsDir, CHECKSUMS_FILE));
    const verdict = expected === undefined ? 'UNKNOWN ' : isConflict(expected) ? 'CONFLICT' : actual === expected.sha256 ? 'ok      ' : 'MISMATCH';
    ok &&= verdict === 'ok      ';
    log(`${verdict} ${file} ${actual}`);
    if (isConflict(expected)) log(`         ${expected.conflict}`);
  }
  return ok;
}

const USAGE = 'usage: mdt-models fetch|bundle|install|verify [--profile p] [--manifest f] [--models-dir d] [--out f] [bundle.tar]';

function fail(message: string): never {
  throw new Error(message);
}

async function main(argv: string[]): Promise<number> {
  const config = readConfigOrExit(() => loadConfig());
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      profile: { type: 'string' },
      manifest: { type: 'string', default: config.models.manifestPath },
      'models-dir': { type: 'string', default: config.models.dir },
      out: { type: 'string' },
    },
  });
  const context: Context = {
    manifest: await loadManifest(values.manifest),
    manifestPath: values.manifest,
    modelsDir: values['models-dir'],
  };
  const profile = () => values.profile ?? fail("give --profile (one of the manifest's profiles)");
  switch (command) {
    case 'fetch':
      await fetchProfile(context, profile());
      return 0;
    case 'bundle':
      await bundleProfile(context, profile(), values.out ?? `models-${profile()}.tar`);
      return 0;
    case 'install':
      await installBundle(context, positionals[0] ?? fail('give the bundle: npm run models:install -- <bundle.tar>'));
      return 0;
    case 'verify':
      return (await verifyModels(context, values.profile)) ? 0 : 1;
    default:
      return fail(USAGE);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  },
);
