/**
 * Model files for connected and air-gapped sites:
 *
 *   npm run models:fetch -- --profile gpu          download a profile's files into MODELS_DIR (connected machine)
 *   npm run models:bundle -- --profile gpu         one tar with the files, SHA256SUMS and the manifest
 *   npm run models:install -- models-gpu.tar       unpack into MODELS_DIR, every file checked first
 *   npm run models:verify [-- --profile gpu]       hash every model file in MODELS_DIR against its checksum
 *
 * Options: --manifest <path> (default models/manifest.json), --models-dir <dir> (default
 * $MODELS_DIR or ./models), --out <file> (bundle).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { download } from './download.js';
import {
  CHECKSUMS_FILE,
  expectedHash,
  loadManifest,
  profileModels,
  readChecksums,
  sha256OfFile,
  writeChecksums,
  type Manifest,
  type ModelEntry,
} from './manifest.js';

const run = promisify(execFile);

interface Context {
  manifest: Manifest;
  manifestPath: string;
  modelsDir: string;
  log(line: string): void;
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

export async function fetchProfile(context: Context, profile: string): Promise<void> {
  await mkdir(context.modelsDir, { recursive: true });
  const sums = await readChecksums(context.modelsDir);
  for (const entry of profileModels(context.manifest, profile)) {
    const dest = join(context.modelsDir, entry.file);
    const expected = expectedHash(entry, entry.file, sums);
    if (existsSync(dest) && expected && (await sha256OfFile(dest)) === expected) {
      context.log(`${entry.file}: present and verified`);
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
    context.log(`${entry.file}: ${result.bytes} bytes, sha256 ${result.sha256} ${trust}${resumed}`);
  }
}

export async function bundleProfile(context: Context, profile: string, out: string): Promise<void> {
  const entries = profileModels(context.manifest, profile);
  const sums = await readChecksums(context.modelsDir);
  const bundled = new Map<string, string>();
  for (const entry of entries) {
    const path = join(context.modelsDir, entry.file);
    if (!existsSync(path)) throw new Error(`${entry.file} is not in ${context.modelsDir}; run models:fetch -- --profile ${profile} first`);
    const actual = await sha256OfFile(path);
    const expected = expectedHash(entry, entry.file, sums);
    if (expected && actual !== expected) throw new Error(`${entry.file} does not match its checksum; fetch it again`);
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
  context.log(`${out}: ${entries.length} files, ${(await stat(out)).size} bytes, with ${CHECKSUMS_FILE} and manifest.json`);
}

export async function installBundle(context: Context, bundle: string): Promise<void> {
  await mkdir(context.modelsDir, { recursive: true });
  const staging = await mkdtemp(join(context.modelsDir, '.install-'));
  try {
    await run('tar', ['-xf', bundle, '-C', staging, '--no-same-owner', '--no-same-permissions']);
    const sums = await readChecksums(staging);
    if (sums.size === 0) throw new Error(`${bundle} has no ${CHECKSUMS_FILE}; it is not a models bundle`);
    const installed = await readChecksums(context.modelsDir);
    for (const [file, sha256] of sums) {
      const entry = context.manifest.models.find((m) => m.file === file);
      if (!/^[\w][\w.+-]*$/.test(file)) throw new Error(`${bundle}: refusing the file name ${JSON.stringify(file)}`);
      if (entry?.sha256 && entry.sha256 !== sha256) throw new Error(`${file}: the bundle's checksum differs from the manifest's`);
      if ((await sha256OfFile(join(staging, file))) !== sha256) throw new Error(`${file}: damaged in transfer (sha256 mismatch); nothing was installed`);
    }
    for (const [file, sha256] of sums) {
      await rename(join(staging, file), join(context.modelsDir, file));
      installed.set(file, sha256);
      context.log(`${file}: installed, sha256 ${sha256}`);
    }
    await writeChecksums(context.modelsDir, installed);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

export interface VerifyReport {
  ok: boolean;
  lines: string[];
}

export async function verifyModels(context: Context, profile?: string): Promise<VerifyReport> {
  const sums = await readChecksums(context.modelsDir);
  const present = new Set((await readdir(context.modelsDir).catch(() => [])).filter((f) => !f.startsWith('.')));
  const wanted: Array<ModelEntry | undefined> = profile ? profileModels(context.manifest, profile) : [];
  const files = new Set([...sums.keys(), ...context.manifest.models.filter((m) => present.has(m.file)).map((m) => m.file), ...wanted.map((m) => m!.file)]);
  const lines: string[] = [];
  let ok = true;
  for (const file of [...files].sort()) {
    const entry = context.manifest.models.find((m) => m.file === file);
    if (!present.has(file)) {
      const required = wanted.some((m) => m?.file === file);
      ok &&= !required;
      lines.push(`${required ? 'MISSING ' : 'absent  '} ${file}`);
      continue;
    }
    const expected = expectedHash(entry, file, sums);
    const actual = await sha256OfFile(join(context.modelsDir, file));
    const verdict = expected === undefined ? 'UNKNOWN ' : actual === expected ? 'ok      ' : 'MISMATCH';
    ok &&= verdict === 'ok      ';
    lines.push(`${verdict} ${file} ${actual}`);
  }
  return { ok, lines };
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      profile: { type: 'string' },
      manifest: { type: 'string', default: 'models/manifest.json' },
      'models-dir': { type: 'string', default: process.env.MODELS_DIR || './models' },
      out: { type: 'string' },
    },
  });
  const context: Context = {
    manifest: await loadManifest(values.manifest),
    manifestPath: values.manifest,
    modelsDir: values['models-dir'],
    log: (line) => console.log(line),
  };
  const profile = () => values.profile ?? fail('give --profile (one of the manifest\'s profiles)');
  switch (command) {
    case 'fetch':
      return fetchProfile(context, profile());
    case 'bundle':
      return bundleProfile(context, profile(), values.out ?? `models-${profile()}.tar`);
    case 'install':
      return installBundle(context, positionals[0] ?? fail('give the bundle: npm run models:install -- <bundle.tar>'));
    case 'verify': {
      const report = await verifyModels(context, values.profile);
      for (const line of report.lines) console.log(line);
      if (report.lines.length === 0) console.log(`no file of the manifest or of ${CHECKSUMS_FILE} in ${context.modelsDir}`);
      if (!report.ok) process.exitCode = 1;
      return;
    }
    default:
      fail('usage: tool.ts fetch|bundle|install|verify [--profile p] [--manifest f] [--models-dir d] [--out f] [bundle.tar]');
  }
}

function fail(message: string): never {
  throw new Error(message);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
