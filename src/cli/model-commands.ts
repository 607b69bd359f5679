/**
 * What the models command does (models.ts parses its arguments): fetch a profile's files on a
 * connected machine, bundle them with their checksums, install a bundle inside the air-gapped
 * site, verify what is installed. Every file is checked by the rule the gateway applies when it
 * loads it (platform/models/trust.ts).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { CHECKSUMS_FILE, readChecksums, sha256OfFile, writeChecksums } from '../platform/models/checksums.js';
import { download } from '../platform/models/download.js';
import { profileModels, type Manifest, type ModelEntry } from '../platform/models/manifest.js';
import { ModelTrustConflict, vouchedHash } from '../platform/models/trust.js';

const run = promisify(execFile);

export interface Context {
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

/** The hash `file` must have, from the manifest's entry and the checksums recorded in `sumsDir`. */
function expectedHash(context: Context, entry: ModelEntry | undefined, file: string, sums: Map<string, string>, sumsDir: string) {
  const recorded = sums.get(file);
  return vouchedHash(
    file,
    entry?.sha256 ? { sha256: entry.sha256, source: context.manifestPath } : undefined,
    recorded ? { sha256: recorded, source: join(sumsDir, CHECKSUMS_FILE) } : undefined,
  )?.sha256;
}

export async function fetchProfile(context: Context, profile: string): Promise<void> {
  await mkdir(context.modelsDir, { recursive: true });
  const sums = await readChecksums(context.modelsDir);
  for (const entry of profileModels(context.manifest, profile)) {
    const dest = join(context.modelsDir, entry.file);
    const expected = expectedHash(context, entry, entry.file, sums, context.modelsDir);
    if (existsSync(dest) && expected && (await sha256OfFile(dest)) === expected) {
      context.log(`${entry.file}: present and verified`);
      continue;
    }
    if (entry.url === null) throw new Error(`${entry.file} has no download URL (${entry.note ?? 'it is made, not downloaded'}); place it in ${context.modelsDir}`);
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
    const expected = expectedHash(context, entry, entry.file, sums, context.modelsDir);
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
      expectedHash(context, entry, file, sums, bundle);
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
    let expected: string | undefined;
    try {
      expected = expectedHash(context, entry, file, sums, context.modelsDir);
    } catch (error) {
      if (!(error instanceof ModelTrustConflict)) throw error;
      ok = false;
      lines.push(`CONFLICT ${error.message}`);
      continue;
    }
    const actual = await sha256OfFile(join(context.modelsDir, file));
    const verdict = expected === undefined ? 'UNKNOWN ' : actual === expected ? 'ok      ' : 'MISMATCH';
    ok &&= verdict === 'ok      ';
    lines.push(`${verdict} ${file} ${actual}`);
  }
  return { ok, lines };
}

