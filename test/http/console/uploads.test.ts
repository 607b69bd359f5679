import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentPcmWav } from '../../../src/engines/asr/wav.js';
import { startGateway, type TestGateway } from '../../../scripts/lib/gateway.js';
import { PNG_BYTES } from '../../support/media-bytes.js';
import { slowPost } from '../../support/slow-client.js';

const MIB = 1024 * 1024;
const TOKEN = 'console-uploads-token';
const FETCH_MAX_BYTES = 2 * MIB;
const ASR_MAX_BYTES = 48 * MIB;
const UPLOADS = '/console/api/uploads';

/**
 * Console uploads through a real socket, under the byte limits of fetched files: the kind's limit
 * is read from the bytes (FETCH_MAX_BYTES for an image or PDF, ASR_MAX_BYTES for a recording),
 * an oversized one is refused as it streams in, and none is held in memory whole or left in TMPDIR.
 */
describe('console uploads are streamed to disk under the fetch limits', () => {
  let gateway: TestGateway;
  let port: number;
  const upload = (bytes: number, head: Buffer, chunked: boolean) =>
    slowPost({
      port,
      path: UPLOADS,
      bytes,
      head,
      chunkBytes: 256 * 1024,
      delayMs: 1,
      chunked,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' },
    });
  /** This process's console-upload temp folders: none may outlive its request. */
  const leftFolders = async () => (await readdir(tmpdir())).filter((name) => name.startsWith(`mdt-console-upload-${process.pid}@`));

  beforeAll(async () => {
    gateway = await startGateway(
      { API_TOKENS: TOKEN, FETCH_MAX_BYTES: String(FETCH_MAX_BYTES), ASR_MAX_BYTES: String(ASR_MAX_BYTES), LOG_LEVEL: 'warn' },
      { listen: true },
    );
    port = (gateway.app.server.address() as { port: number }).port;
  });
  afterAll(() => gateway.close());

  it.each([
    ['declared', false],
    ['chunked', true],
  ])('refuses an image over FETCH_MAX_BYTES (%s) with 413, though recordings may be larger', async (_how, chunked) => {
    const answer = await upload(FETCH_MAX_BYTES + 1, PNG_BYTES, chunked);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error).toMatchObject({ kind: 'payload_too_large', message: expect.stringContaining(String(FETCH_MAX_BYTES)) });
    expect(await leftFolders()).toEqual([]);
  });

  it('refuses a declared size over every limit before reading the body', async () => {
    const answer = await upload(ASR_MAX_BYTES + 1, silentPcmWav(10), false);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.kind).toBe('payload_too_large');
  });

  it('refuses a chunked recording as it grows past ASR_MAX_BYTES without holding it: memory grows far less than the body', async () => {
    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5);
    const answer = await upload(4 * ASR_MAX_BYTES, silentPcmWav(10), true).finally(() => clearInterval(sampler));
    expect(answer.status).toBe(413);
    expect(peakRss - rssBefore).toBeLessThan(ASR_MAX_BYTES / 2);
    expect(await leftFolders()).toEqual([]);
  });

  it('stores a recording near ASR_MAX_BYTES, streamed, and serves it back whole', async () => {
    const bytes = ASR_MAX_BYTES - MIB;
    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5);
    const answer = await upload(bytes, silentPcmWav(10), true).finally(() => clearInterval(sampler));
    expect(answer.status).toBe(201);
    expect(peakRss - rssBefore).toBeLessThan(bytes / 2);
    const stored = await fetch(`http://127.0.0.1:${port}${JSON.parse(answer.body).path}`);
    expect([stored.status, (await stored.arrayBuffer()).byteLength]).toEqual([200, bytes]);
    expect(await leftFolders()).toEqual([]);
  });
});
