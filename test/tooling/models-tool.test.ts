import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadManifest } from '../../src/platform/models/manifest.js';
import { bundleProfile, fetchProfile, installBundle, verifyModels } from '../../src/cli/model-commands.js';
import { startFileServer, type FileServer } from '../../scripts/lib/file-server.js';
import { REPO_ROOT } from '../../scripts/lib/paths.js';

const MODEL = Buffer.from('GGUF'.repeat(50_000)); // 200 kB stand-in for a model file
const VOCAB = Buffer.from('whisper'.repeat(1_000));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let dir: string;
let server: FileServer;
/** What the server does with the next request for /model.gguf. */
let modelBehaviour: 'normal' | 'corrupt' | 'cut' = 'normal';
const rangeRequests: string[] = [];

function serve(request: IncomingMessage, response: ServerResponse): void {
  const bytes = request.url === '/model.gguf' ? MODEL : request.url === '/vocab.bin' ? VOCAB : undefined;
  if (!bytes) return void response.writeHead(404).end();
  if (request.url === '/model.gguf' && modelBehaviour === 'corrupt') {
    const damaged = Buffer.from(bytes);
    damaged[1000] = damaged[1000]! ^ 0xff;
    return void response.writeHead(200, { 'content-length': damaged.length }).end(damaged);
  }
  const range = /^bytes=(\d+)-$/.exec(request.headers.range ?? '');
  if (range) rangeRequests.push(request.headers.range!);
  const start = range ? Number(range[1]) : 0;
  const body = bytes.subarray(start);
  response.writeHead(range ? 206 : 200, { 'content-length': body.length });
  if (request.url === '/model.gguf' && modelBehaviour === 'cut') {
    modelBehaviour = 'normal';
    response.write(body.subarray(0, 80_000));
    setTimeout(() => response.destroy(), 50); // the connection drops mid-file
    return;
  }
  response.end(body);
}

async function context(manifestChanges: { sha256?: string | null } = {}) {
  const manifestPath = join(dir, 'manifest.json');
  const entry = (id: string, file: string, path: string, hash: string | null) => ({
    id, engine: 'llm', file, url: server.url(path), bytes: null, sha256: hash, licence: 'test',
  });
  const manifest = {
    schema: 1,
    profiles: { small: ['model', 'vocab'] },
    models: [
      entry('model', 'model.gguf', '/model.gguf', 'sha256' in manifestChanges ? manifestChanges.sha256! : sha256(MODEL)),
      entry('vocab', 'vocab.bin', '/vocab.bin', null),
    ],
  };
  await writeFile(manifestPath, JSON.stringify(manifest));
  const lines: string[] = [];
  return {
    manifest: await loadManifest(manifestPath),
    manifestPath,
    modelsDir: join(dir, 'models'),
    log: (line: string) => lines.push(line),
    lines,
  };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'models-tool-'));
  server = await startFileServer(serve);
  modelBehaviour = 'normal';
  rangeRequests.length = 0;
});

afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('models:fetch', () => {
  it('downloads a profile, checks the manifest hash, and records every hash in SHA256SUMS', async () => {
    const ctx = await context();
    await fetchProfile(ctx, 'small');
    expect(await readFile(join(ctx.modelsDir, 'model.gguf'))).toEqual(MODEL);
    const sums = await readFile(join(ctx.modelsDir, 'SHA256SUMS'), 'utf8');
    expect(sums).toBe(`${sha256(MODEL)}  model.gguf\n${sha256(VOCAB)}  vocab.bin\n`);
    expect(ctx.lines[1]).toContain('recorded in SHA256SUMS (the manifest has no hash for it)');
  });

  it('deletes a corrupted download and installs nothing', async () => {
    const ctx = await context();
    modelBehaviour = 'corrupt';
    await expect(fetchProfile(ctx, 'small')).rejects.toThrow(/^model\.gguf: the download from http.* does not match .* it was deleted/);
    expect(existsSync(join(ctx.modelsDir, 'model.gguf'))).toBe(false);
    expect(existsSync(join(ctx.modelsDir, 'model.gguf.part'))).toBe(false);
  });

  it('resumes an interrupted download where it stopped', async () => {
    const ctx = await context();
    modelBehaviour = 'cut';
    await expect(fetchProfile(ctx, 'small')).rejects.toThrow();
    expect(existsSync(join(ctx.modelsDir, 'model.gguf.part'))).toBe(true);

    await fetchProfile(ctx, 'small');
    expect(rangeRequests[0]).toMatch(/^bytes=\d+-$/);
    expect(ctx.lines.join('\n')).toMatch(/model.gguf: 200000 bytes, .* matches the manifest, resumed at \d+ bytes/);
    expect(await readFile(join(ctx.modelsDir, 'model.gguf'))).toEqual(MODEL);
  });

  it('skips files that are present and verified', async () => {
    const ctx = await context();
    await fetchProfile(ctx, 'small');
    await fetchProfile(ctx, 'small');
    expect(ctx.lines.slice(2)).toEqual(['model.gguf: present and verified', 'vocab.bin: present and verified']);
  });
});

describe('models:bundle, models:install and models:verify', () => {
  it('carries a profile into another models folder, verified byte for byte', async () => {
    const ctx = await context();
    await fetchProfile(ctx, 'small');
    const bundle = join(dir, 'bundle.tar');
    await bundleProfile(ctx, 'small', bundle);

    const site = { ...ctx, modelsDir: join(dir, 'air-gapped') };
    await installBundle(site, bundle);
    expect(await readFile(join(site.modelsDir, 'vocab.bin'))).toEqual(VOCAB);
    expect(await readFile(join(site.modelsDir, 'SHA256SUMS'), 'utf8')).toContain(`${sha256(VOCAB)}  vocab.bin`);
    expect(await verifyModels(site, 'small')).toEqual({
      ok: true,
      lines: [`ok       model.gguf ${sha256(MODEL)}`, `ok       vocab.bin ${sha256(VOCAB)}`],
    });
  });

  it('refuses a bundle damaged in transfer, installing nothing', async () => {
    const ctx = await context();
    await fetchProfile(ctx, 'small');
    const bundle = join(dir, 'bundle.tar');
    await bundleProfile(ctx, 'small', bundle);
    const bytes = await readFile(bundle);
    const at = bytes.indexOf(Buffer.from('GGUFGGUF')) + 5_000;
    bytes[at] = bytes[at]! ^ 0xff;
    await writeFile(bundle, bytes);

    const site = { ...ctx, modelsDir: join(dir, 'air-gapped') };
    await expect(installBundle(site, bundle)).rejects.toThrow(/model.gguf: damaged in transfer/);
    expect(existsSync(join(site.modelsDir, 'model.gguf'))).toBe(false);
    expect(existsSync(join(site.modelsDir, 'vocab.bin'))).toBe(false);
  });

  it('reports a changed file and a missing one, and fails', async () => {
    const ctx = await context();
    await fetchProfile(ctx, 'small');
    await writeFile(join(ctx.modelsDir, 'vocab.bin'), 'tampered');
    await rm(join(ctx.modelsDir, 'model.gguf'));
    const report = await verifyModels(ctx, 'small');
    expect(report.ok).toBe(false);
    expect(report.lines).toEqual(['MISSING  model.gguf', `MISMATCH vocab.bin ${sha256(Buffer.from('tampered'))}`]);
  });

  it('reports a file the manifest and SHA256SUMS disagree about as a conflict, by the rule the gateway applies', async () => {
    const ctx = await context();
    await fetchProfile(ctx, 'small');
    await writeFile(join(ctx.modelsDir, 'SHA256SUMS'), `${'e'.repeat(64)}  model.gguf\n${sha256(VOCAB)}  vocab.bin\n`);
    const report = await verifyModels(ctx, 'small');
    expect(report.ok).toBe(false);
    expect(report.lines[0]).toMatch(/^CONFLICT model\.gguf: .*manifest\.json vouches for sha256 .*, but .*SHA256SUMS for eeeeeeeeeeee…/);
    expect(report.lines[1]).toBe(`ok       vocab.bin ${sha256(VOCAB)}`);
  });

  it('refuses a bundle whose checksums disagree with the manifest, installing nothing', async () => {
    const ctx = await context();
    await fetchProfile(ctx, 'small');
    const bundle = join(dir, 'bundle.tar');
    await bundleProfile(ctx, 'small', bundle);
    const site = { ...(await context({ sha256: 'd'.repeat(64) })), modelsDir: join(dir, 'air-gapped') };
    await expect(installBundle(site, bundle)).rejects.toThrow(/model\.gguf: .*vouches for sha256 dddddddddddd…/);
    expect(existsSync(join(site.modelsDir, 'model.gguf'))).toBe(false);
  });

  it('refuses to bundle a file that no longer matches the manifest', async () => {
    const ctx = await context({ sha256: 'f'.repeat(64) });
    await expect(fetchProfile(ctx, 'small')).rejects.toThrow(/^model\.gguf: the download .* does not match \(sha256 .*expected ffffffffffff…/);
    await writeFile(join(dir, 'models', 'model.gguf'), MODEL);
    await expect(bundleProfile(ctx, 'small', join(dir, 'b.tar'))).rejects.toThrow(/does not match its checksum/);
  });
});

describe('the shipped manifest', () => {
  it('is valid and names every profile the documentation promises', async () => {
    const manifest = await loadManifest(join(REPO_ROOT, 'models', 'manifest.json'));
    expect(Object.keys(manifest.profiles).sort()).toEqual(['cpu-medium', 'cpu-small', 'gpu']);
    for (const model of manifest.models) expect(model.url).toMatch(/^https:\/\//);
  });

  it("pins the publisher's sha256 of every model file, at a fixed revision of the publisher's repository", async () => {
    const manifest = await loadManifest(join(REPO_ROOT, 'models', 'manifest.json'));
    for (const model of manifest.models.filter((m) => m.engine !== 'ocr')) {
      expect(model.sha256, model.file).toMatch(/^[0-9a-f]{64}$/);
      expect(model.url, model.file).toMatch(/\/resolve\/[0-9a-f]{40}\//);
    }
  });
});

describe('a manifest entry with no download URL (the test models)', () => {
  it('is refused by models:fetch, saying how the file is made', async () => {
    const manifestPath = join(dir, 'manifest.json');
    await writeFile(manifestPath, JSON.stringify({
      schema: 1,
      profiles: { test: ['made'] },
      models: [{ id: 'made', engine: 'llm', file: 'made.gguf', url: null, bytes: null, sha256: null, licence: 'test', note: 'made by npm run models:test' }],
    }));
    const ctx = { manifest: await loadManifest(manifestPath), manifestPath, modelsDir: join(dir, 'models'), log: () => {} };
    await expect(fetchProfile(ctx, 'test')).rejects.toThrow('made.gguf has no download URL (made by npm run models:test)');
  });
});
