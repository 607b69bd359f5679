/**
 * Nothing phones home: the real gateway process, its PP-OCR engine started (onnxruntime loaded in
 * its worker threads) and a page read, leaves no usage-telemetry store in its home or cache folder
 * and no telemetry log in its temp folder. onnxruntime 1.30 on Linux keeps one unless told not to,
 * queued for upload to its vendor's collector.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFileServer, type FileServer } from '../../scripts/lib/file-server.js';
import { postJson } from '../../scripts/lib/gateway.js';
import { fixturePath } from '../../scripts/lib/paths.js';
import { NEUTRAL_GATEWAY_ENV, onFreePort, spawnFromSource, until, waitForLine } from '../../scripts/lib/processes.js';

/** Every file under `dir`, as paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));
}

describe('the gateway keeps its OCR runtime from recording telemetry', () => {
  let dir: string;
  let files: FileServer;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'no-telemetry-e2e-'));
    for (const folder of ['home', 'cache', 'tmp', 'data']) await mkdir(join(dir, folder));
    const page = await readFile(fixturePath('ocr', 'report1.png'));
    files = await startFileServer((_request, response) => response.end(page));
  });

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await files?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a page with PP-OCR and leaves nothing in its home, cache or temp folder', async () => {
    const port = await onFreePort(async (free) => {
      child = spawnFromSource('src/main.ts', {
        ...NEUTRAL_GATEWAY_ENV,
        OCR_ENGINE: 'ppocr',
        OCR_WORKERS: '1',
        HOST: '127.0.0.1',
        PORT: String(free),
        LOG_LEVEL: 'info',
        HOME: join(dir, 'home'),
        XDG_CACHE_HOME: join(dir, 'cache'),
        DATA_DIR: join(dir, 'data'),
        TMPDIR: join(dir, 'tmp'),
        FETCH_ALLOW_LOOPBACK: 'true',
        // Even where the environment asks for it.
        ORT_DISABLE_TELEMETRY: '0',
      });
      await waitForLine(child, 'gateway started');
      return free;
    });
    // Both readers loaded: PP-OCR's worker and tesseract.js's.
    expect(await until(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok, 60_000)).toBe(true);
    const response = await postJson(`http://127.0.0.1:${port}/ai/v1/case-ocr`, {
      request_id: 'telemetry',
      files: [{ upload_file_id: 1, bucket: 'b', object_key: 'report1.png', file_name: 'report1.png', file_url: files.url('/report1.png') }],
    });
    expect(response.status, response.body).toBe(200);
    expect(JSON.parse(response.body).ocr_results[0].ocr_result.length).toBeGreaterThan(20);
    const exited = once(child!, 'exit');
    child!.kill('SIGTERM');
    await exited;

    expect(await filesUnder(join(dir, 'home'))).toEqual([]);
    expect(await filesUnder(join(dir, 'cache'))).toEqual([]);
    // The gateway's own temp folders are gone once it has stopped; a telemetry log would stay.
    // (tsx, which runs it from source, keeps its cache there.)
    expect((await filesUnder(join(dir, 'tmp'))).filter((path) => !path.startsWith('tsx-'))).toEqual([]);
  }, 120_000);
});
