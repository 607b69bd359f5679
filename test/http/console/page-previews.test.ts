/**
 * GET /console/api/files/:token/pages/:page: a page of a file the gateway holds, rendered by the
 * documents engine as PNG, through the public HTTP interface of a real gateway (no OCR needed).
 */
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStores, type Stores } from '../../../src/platform/store/index.js';
import { startGateway, type TestGateway } from '../../../scripts/lib/gateway.js';
import { fixturePath } from '../../../scripts/lib/paths.js';

const TOKEN = 'console-pages-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };

let gateway: TestGateway;
let stores: Stores;

beforeAll(async () => {
  gateway = await startGateway({ OPERATOR_TOKENS: `console=${TOKEN}` });
  stores = await openStores({ dataDir: gateway.dataDir, publicBaseUrl: gateway.config.server.publicBaseUrl });
});
afterAll(async () => {
  await stores.close();
  await gateway.close();
});

/** A console upload's token. */
async function upload(bytes: Buffer): Promise<string> {
  const response = await gateway.app.inject({
    method: 'POST',
    url: '/console/api/uploads',
    headers: { ...AUTH, 'content-type': 'application/octet-stream' },
    payload: bytes,
  });
  expect(response.statusCode).toBe(201);
  return response.json<{ token: string }>().token;
}

/** A file the gateway produced (as case-file-process stores its output): its token. */
async function produced(bytes: Buffer, contentType: string, now?: Date): Promise<{ key: string; token: string }> {
  const { key } = await stores.blobs.put(bytes, { contentType, ttlSeconds: 60 });
  return { key, token: new URL(stores.fileUrls.urlFor(key, 60, now)).pathname.replace('/files/', '') };
}

const pageOf = (token: string, page: number | string, headers: Record<string, string> = AUTH) =>
  gateway.app.inject({ method: 'GET', url: `/console/api/files/${token}/pages/${page}`, headers });

async function pngPage(token: string, page: number) {
  const response = await pageOf(token, page);
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toBe('image/png');
  expect(response.headers['cache-control']).toBe('private, no-store');
  const { data, info } = await sharp(response.rawPayload).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

describe('a page of a file the gateway holds, as PNG', () => {
  it('renders each page of a multi-page TIFF upload, which no browser shows', async () => {
    const token = await upload(await readFile(fixturePath('ocr', 'reports-2page.tiff')));
    const [first, second] = [await pngPage(token, 1), await pngPage(token, 2)];
    expect([first.width, first.height]).toEqual([1000, 504]);
    expect([second.width, second.height]).toEqual([1000, 504]);
    expect(first.data.equals(second.data)).toBe(false);
  });

  it('renders each page of a PDF the gateway produced, and a photo upright as its EXIF says', async () => {
    const pdf = await produced(await readFile(fixturePath('deid', 'admission-zh-text.pdf')), 'application/pdf');
    for (const page of [1, 2]) expect((await pngPage(pdf.token, page)).width).toBeGreaterThan(500);
    // Stored 560 × 1100, shown turned as the camera meant.
    const photo = await pngPage(await upload(await readFile(fixturePath('deid', 'imaging-zh-exif.jpg'))), 1);
    expect([photo.width, photo.height]).toEqual([1100, 560]);
  });

  it('scales a wide page down to 1200 px', async () => {
    const wide = await sharp({ create: { width: 3000, height: 1000, channels: 3, background: '#f0f0f0' } }).png().toBuffer();
    const page = await pngPage(await upload(wide), 1);
    expect([page.width, page.height]).toEqual([1200, 400]);
  });

  it('answers 400 for a page the file does not have, with the error body', async () => {
    const token = await upload(await readFile(fixturePath('ocr', 'reports-2page.tiff')));
    for (const page of [3, 0, 'one', '1.5']) {
      const response = await pageOf(token, page);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ kind: 'invalid_request', retryable: false });
    }
    expect((await pageOf(token, 3)).json().error.message).toBe('page 3 does not exist: the file has 2 page(s)');
  });

  it('answers 404 for a link that is tampered with, expired or to a file that is gone', async () => {
    const token = await upload(await readFile(fixturePath('ocr', 'report1.png')));
    const tampered = token.slice(0, 5) + (token[5] === 'A' ? 'B' : 'A') + token.slice(6);
    const expired = await produced(await readFile(fixturePath('ocr', 'report1.png')), 'image/png', new Date(Date.now() - 120_000));
    const deleted = await produced(await readFile(fixturePath('ocr', 'report1.png')), 'image/png');
    await stores.blobs.delete(deleted.key);
    for (const link of [tampered, 'not-a-token', expired.token, deleted.token]) {
      const response = await pageOf(link, 1);
      expect(response.statusCode).toBe(404);
      expect(response.json().error).toMatchObject({ kind: 'not_found', retryable: false });
    }
  });

  it('answers 415 for a held file that is no image or PDF', async () => {
    const { token } = await produced(Buffer.from('plain text'), 'text/plain');
    const response = await pageOf(token, 1);
    expect(response.statusCode).toBe(415);
    expect(response.json().error.kind).toBe('unsupported_media');
  });

  it('answers only with a valid bearer token, and logs neither the link nor the file', async () => {
    const token = await upload(await readFile(fixturePath('ocr', 'report1.png')));
    expect((await pageOf(token, 1, {})).statusCode).toBe(401);
    expect((await pageOf(token, 1, { authorization: 'Bearer nope' })).statusCode).toBe(401);
    await pngPage(token, 1);
    const logs = gateway.logs.join('\n');
    expect(logs).toContain('/console/api/files/:token/pages/:page');
    expect(logs).not.toContain(token);
  });
});
