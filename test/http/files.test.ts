import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStores, type Stores } from '../../src/platform/store/index.js';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';

let gateway: TestGateway;
let stores: Stores;

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://gateway.hospital.local:8080/' });
  stores = await openStores({ dataDir: gateway.dataDir, publicBaseUrl: gateway.config.server.publicBaseUrl });
});
afterAll(async () => {
  await stores.close();
  await gateway.close();
});

async function storedFile(ttlSeconds = 60) {
  const bytes = Buffer.from('%PDF-1.4 de-identified');
  const meta = await stores.blobs.put(bytes, { contentType: 'application/pdf', ttlSeconds });
  const url = stores.fileUrls.urlFor(meta.key, ttlSeconds);
  return { bytes, meta, url, path: new URL(url).pathname };
}

describe('GET /files/<token>', () => {
  it('serves a produced file through its signed URL built on PUBLIC_BASE_URL, uncached', async () => {
    const { bytes, url, path } = await storedFile();
    expect(url.startsWith('http://gateway.hospital.local:8080/files/')).toBe(true);
    const response = await gateway.app.inject({ url: path });
    expect(response.statusCode).toBe(200);
    expect(response.rawPayload.equals(bytes)).toBe(true);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['cache-control']).toBe('private, no-store');
  });

  it('refuses a tampered token with 403 forbidden', async () => {
    const { path } = await storedFile();
    const token = path.split('/').at(-1)!;
    const flipped = token.slice(0, 5) + (token[5] === 'A' ? 'B' : 'A') + token.slice(6);
    const response = await gateway.app.inject({ url: `/files/${flipped}` });
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toMatchObject({ kind: 'forbidden', retryable: false });
    expect((await gateway.app.inject({ url: '/files/not-a-token' })).statusCode).toBe(403);
  });

  it('refuses an expired token with 410 expired', async () => {
    const meta = await stores.blobs.put(Buffer.from('x'), { contentType: 'image/png', ttlSeconds: 60 });
    const url = stores.fileUrls.urlFor(meta.key, 60, new Date(Date.now() - 120_000));
    const response = await gateway.app.inject({ url: new URL(url).pathname });
    expect(response.statusCode).toBe(410);
    expect(response.json().error.kind).toBe('expired');
  });

  it('answers 404 not_found once the file is deleted', async () => {
    const { meta, path } = await storedFile();
    await stores.blobs.delete(meta.key);
    const response = await gateway.app.inject({ url: path });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.kind).toBe('not_found');
  });
});
