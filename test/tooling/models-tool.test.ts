import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadManifest } from '../../src/platform/models/index.js';
import { startFileServer, type FileServer } from '../support/file-server.js';
import { runFromSource } from '../support/processes.js';
import { REPO_ROOT } from '../support/paths.js';

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

interface ToolContext {
  manifestPath: string;
  modelsDir: string;
}

async function context(manifestChanges: { sha256?: string | null } = {}): Promise<ToolContext> {
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
  return { manifestPath, modelsDir: join(dir, 'models') };
}

/** The models tool (src/cli/models.ts) run from source: its exit code, stdout lines and stderr. */
async function tool(ctx: ToolContext, ...args: string[]) {
  const { code, stdout, stderr } = await runFromSource('src/cli/models.ts', [...args, '--manifest', ctx.manifestPath, '--models-dir', ctx.modelsDir]);
  return { code, lines: stdout.split('\n').filter(Boolean), stderr };
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
    const fetched = await tool(ctx, 'fetch', '--profile', 'small');
    expect(fetched.code).toBe(0);
    expect(await readFile(join(ctx.modelsDir, 'model.gguf'))).toEqual(MODEL);
    const sums = await readFile(join(ctx.modelsDir, 'SHA256SUMS'), 'utf8');
    expect(sums).toBe(`${sha256(MODEL)}  model.gguf\n${sha256(VOCAB)}  vocab.bin\n`);
    expect(fetched.lines[1]).toContain('recorded in SHA256SUMS (the manifest has no hash for it)');
  });

  it('deletes a corrupted download and installs nothing', async () => {
    const ctx = await context();
    modelBehaviour = 'corrupt';
    const fetched = await tool(ctx, 'fetch', '--profile', 'small');
    expect(fetched.code).toBe(1);
    expect(fetched.stderr).toMatch(/does not match .* it was deleted/);
    expect(existsSync(join(ctx.modelsDir, 'model.gguf'))).toBe(false);
    expect(existsSync(join(ctx.modelsDir, 'model.gguf.part'))).toBe(false);
  });

  it('resumes an interrupted download where it stopped', async () => {
    const ctx = await context();
    modelBehaviour = 'cut';
    expect((await tool(ctx, 'fetch', '--profile', 'small')).code).toBe(1);
    expect(existsSync(join(ctx.modelsDir, 'model.gguf.part'))).toBe(true);

    const resumed = await tool(ctx, 'fetch', '--profile', 'small');
    expect(rangeRequests[0]).toMatch(/^bytes=\d+-$/);
    expect(resumed.lines.join('\n')).toMatch(/model.gguf: 200000 bytes, .* matches the manifest, resumed at \d+ bytes/);
    expect(await readFile(join(ctx.modelsDir, 'model.gguf'))).toEqual(MODEL);
  });

  it('skips files that are present and verified', async () => {
    const ctx = await context();
    await tool(ctx, 'fetch', '--profile', 'small');
    const again = await tool(ctx, 'fetch', '--profile', 'small');
    expect(again.lines).toEqual(['model.gguf: present and verified', 'vocab.bin: present and verified']);
  });
});

describe('models:bundle, models:install and models:verify', () => {
  it('carries a profile into another models folder, verified byte for byte', async () => {
    const ctx = await context();
    await tool(ctx, 'fetch', '--profile', 'small');
    const bundle = join(dir, 'bundle.tar');
    expect((await tool(ctx, 'bundle', '--profile', 'small', '--out', bundle)).code).toBe(0);

    const site = { ...ctx, modelsDir: join(dir, 'air-gapped') };
    expect((await tool(site, 'install', bundle)).code).toBe(0);
    expect(await readFile(join(site.modelsDir, 'vocab.bin'))).toEqual(VOCAB);
    expect(await readFile(join(site.modelsDir, 'SHA256SUMS'), 'utf8')).toContain(`${sha256(VOCAB)}  vocab.bin`);
    const verified = await tool(site, 'verify', '--profile', 'small');
    expect(verified).toMatchObject({
      code: 0,
      lines: [`ok       model.gguf ${sha256(MODEL)}`, `ok       vocab.bin ${sha256(VOCAB)}`],
    });
  });

  it('refuses a bundle damaged in transfer, installing nothing', async () => {
    const ctx = await context();
    await tool(ctx, 'fetch', '--profile', 'small');
    const bundle = join(dir, 'bundle.tar');
    await tool(ctx, 'bundle', '--profile', 'small', '--out', bundle);
    const bytes = await readFile(bundle);
    const at = bytes.indexOf(Buffer.from('GGUFGGUF')) + 5_000;
    bytes[at] = bytes[at]! ^ 0xff;
    await writeFile(bundle, bytes);

    const site = { ...ctx, modelsDir: join(dir, 'air-gapped') };
    const installed = await tool(site, 'install', bundle);
    expect(installed.code).toBe(1);
    expect(installed.stderr).toMatch(/model.gguf: damaged in transfer/);
    expect(existsSync(join(site.modelsDir, 'model.gguf'))).toBe(false);
    expect(existsSync(join(site.modelsDir, 'vocab.bin'))).toBe(false);
  });

  it('reports a changed file and a missing one, and fails', async () => {
    const ctx = await context();
    await tool(ctx, 'fetch', '--profile', 'small');
    await writeFile(join(ctx.modelsDir, 'vocab.bin'), 'tampered');
    await rm(join(ctx.modelsDir, 'model.gguf'));
    const report = await tool(ctx, 'verify', '--profile', 'small');
    expect(report.code).toBe(1);
    expect(report.lines).toEqual(['MISSING  model.gguf', `MISMATCH vocab.bin ${sha256(Buffer.from('tampered'))}`]);
  });

  it('refuses to bundle a file that no longer matches the manifest', async () => {
    const ctx = await context({ sha256: 'f'.repeat(64) });
    expect((await tool(ctx, 'fetch', '--profile', 'small')).stderr).toMatch(/does not match/);
    await writeFile(join(dir, 'models', 'model.gguf'), MODEL);
    const bundled = await tool(ctx, 'bundle', '--profile', 'small', '--out', join(dir, 'b.tar'));
    expect(bundled.code).toBe(1);
    expect(bundled.stderr).toMatch(/does not match its checksum/);
  });
});

describe('a manifest and a SHA256SUMS that disagree', () => {
  /** A fetched profile whose manifest then lists another hash for model.gguf than SHA256SUMS does. */
  async function conflicting(): Promise<ToolContext> {
    const ctx = await context();
    await tool(ctx, 'fetch', '--profile', 'small');
    return context({ sha256: 'f'.repeat(64) });
  }
  const namesBoth = /model\.gguf: .*manifest\.json lists sha256 ffffffffffff…, but .*SHA256SUMS lists [0-9a-f]{12}…/;

  it('are refused by fetch and bundle, naming both lists', async () => {
    const ctx = await conflicting();
    for (const args of [['fetch', '--profile', 'small'], ['bundle', '--profile', 'small', '--out', join(dir, 'b.tar')]]) {
      const refused = await tool(ctx, ...args);
      expect(refused.code, args[0]).toBe(1);
      expect(refused.stderr, args[0]).toMatch(namesBoth);
    }
    expect(existsSync(join(dir, 'b.tar'))).toBe(false);
  });

  it('are reported by verify as a conflict, which fails it', async () => {
    const report = await tool(await conflicting(), 'verify');
    expect(report.code).toBe(1);
    expect(report.lines[0]).toBe(`CONFLICT model.gguf ${sha256(MODEL)}`);
    expect(report.lines[1]).toMatch(namesBoth);
  });

  it("are refused by install when the bundle's SHA256SUMS disagrees with the manifest", async () => {
    const ctx = await context();
    await tool(ctx, 'fetch', '--profile', 'small');
    const bundle = join(dir, 'bundle.tar');
    await tool(ctx, 'bundle', '--profile', 'small', '--out', bundle);
    const site = { ...(await context({ sha256: 'f'.repeat(64) })), modelsDir: join(dir, 'air-gapped') };
    const installed = await tool(site, 'install', bundle);
    expect(installed.code).toBe(1);
    expect(installed.stderr).toMatch(/model\.gguf: .*manifest\.json lists sha256 ffffffffffff…, but .*bundle\.tar's SHA256SUMS lists/);
    expect(existsSync(join(site.modelsDir, 'model.gguf'))).toBe(false);
  });
});

describe('the shipped manifest', () => {
  it('is valid and names every profile the documentation promises', async () => {
    const manifest = await loadManifest(join(REPO_ROOT, 'models/manifest.json'));
    expect(Object.keys(manifest.profiles).sort()).toEqual(['cpu-small', 'gpu']);
    for (const model of manifest.models) expect(model.url).toMatch(/^https:\/\//);
  });
});
