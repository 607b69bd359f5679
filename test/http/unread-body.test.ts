import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/contract/operations.js';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { slowPost } from '../support/slow-client.js';

const FIVE_MB = 5 * 1024 * 1024;
const TOKEN = 'unread-body-test-token';

/**
 * An answer the gateway gives before reading the body must reach a client that is still
 * writing it: through a real socket, with the body streamed slowly (5 MB in 64 KB chunks).
 */
describe('answers before the body is read reach a client still sending it', () => {
  let gateway: TestGateway;
  let port: number;
  const auth = { authorization: `Bearer ${TOKEN}` };

  beforeAll(async () => {
    gateway = await startGateway({ API_TOKENS: `platform=${TOKEN}` }, { listen: true });
    port = (gateway.app.server.address() as { port: number }).port;
  });
  afterAll(() => gateway.close());

  it.each(Object.values(OPERATIONS).map((op) => op.path))('413 payload_too_large for 5 MB to %s', async (path) => {
    const answer = await slowPost({ port, path, bytes: FIVE_MB, headers: auth });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error).toMatchObject({ kind: 'payload_too_large' });
    expect(answer.headers.connection).toBe('close');
    // The whole body was read (and dropped) before the answer went out.
    expect(answer.sentWhenAnswered).toBe(FIVE_MB);
  });

  it('413 for a chunked body with no Content-Length that grows past the limit', async () => {
    const answer = await slowPost({ port, path: OPERATIONS.speechProcess.path, bytes: FIVE_MB, headers: auth, chunked: true });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({
      error: { kind: 'payload_too_large', message: expect.any(String), retryable: false },
    });
  });

  it('401 and 415, answered before any body was parsed, and 413 on an unknown route', async () => {
    const unauthorized = await slowPost({ port, path: OPERATIONS.asr.path, bytes: FIVE_MB });
    expect([unauthorized.status, JSON.parse(unauthorized.body).error.kind]).toEqual([401, 'unauthorized']);
    const wrongType = await slowPost({ port, path: OPERATIONS.caseOcr.path, bytes: FIVE_MB, headers: { ...auth, 'content-type': 'text/plain' } });
    expect([wrongType.status, JSON.parse(wrongType.body).error.kind]).toEqual([415, 'unsupported_media']);
    const unknown = await slowPost({ port, path: '/no-such-route', bytes: FIVE_MB });
    expect([unknown.status, JSON.parse(unknown.body).error.kind]).toEqual([413, 'payload_too_large']);
  });

  it('keeps serving afterwards', async () => {
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
  });
});
