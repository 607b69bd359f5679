import type { ServerResponse } from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/contract/operations.js';
import { startFileServer, fileReference, type FileServer } from '../../scripts/lib/file-server.js';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { BlankOcrEngine, enginesWith } from '../../scripts/lib/stand-in-engines.js';

const MIB = 1024 * 1024;
const FILE_BYTES = 6 * MIB;
const FETCH_MAX_BYTES = 8 * MIB;
/** Four declared 6 MiB files at once, or three sent without a Content-Length (each reserves FETCH_MAX_BYTES). */
const IN_FLIGHT_BYTES = 24 * MIB;
const DOWNLOADS = 20;
const OPERATOR_TOKEN = 'download-budget-operator';
const TOKEN = 'download-budget-client';
const PATH = OPERATIONS.caseOcr.path;

/** A small real PNG padded to FILE_BYTES after its end: large to download, cheap to read. */
const paddedPng = async (): Promise<Buffer> => {
  const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#fff' } }).png().toBuffer();
  return Buffer.concat([png, Buffer.alloc(FILE_BYTES - png.length)]);
};

/** Streams `bytes` in 256 KiB pieces 20 ms apart (half a second a file): downloads overlap. */
function sendSlowly(response: ServerResponse, bytes: Buffer, declareLength: boolean): void {
  if (declareLength) response.setHeader('content-length', bytes.length);
  const piece = 256 * 1024;
  let sent = 0;
  const next = () => {
    if (response.destroyed) return;
    if (sent >= bytes.length) return void response.end();
    response.write(bytes.subarray(sent, (sent += piece)));
    setTimeout(next, 20);
  };
  next();
}

interface Wave {
  statuses: number[];
  /** The most bytes the gateway said its downloads held at once (`/metrics`, polled every 10 ms). */
  peakAccountedBytes: number;
}

async function downloadBytes(gateway: TestGateway): Promise<number> {
  const metrics = await gateway.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
  return Number(/^gateway_download_bytes (\d+)$/m.exec(metrics.body)?.[1]);
}

/** DOWNLOADS case-ocr requests at once, each for one large file, half of them sent without a Content-Length. */
async function wave(gateway: TestGateway, files: FileServer): Promise<Wave> {
  let peakAccountedBytes = 0;
  let polling = true;
  const poll = (async () => {
    while (polling) {
      peakAccountedBytes = Math.max(peakAccountedBytes, await downloadBytes(gateway));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const answers = await Promise.all(
    Array.from({ length: DOWNLOADS }, (_, index) =>
      gateway.app.inject({
        method: 'POST',
        url: PATH,
        headers: { authorization: `Bearer ${TOKEN}` },
        payload: { request_id: `wave-${index}`, files: [fileReference(files, 1, index % 2 ? `declared-${index}.png` : `chunked-${index}.png`)] },
      }),
    ),
  );
  polling = false;
  await poll;
  return { statuses: answers.map((answer) => answer.statusCode), peakAccountedBytes };
}

/**
 * 20 concurrent requests each downloading a 6 MiB file from a slow source: the bytes held by
 * downloads in flight stay within FETCH_MAX_IN_FLIGHT_BYTES while every request is answered, and
 * the same wave with a budget as large as all of it holds far more at once.
 */
describe('downloads in flight hold at most FETCH_MAX_IN_FLIGHT_BYTES', () => {
  let files: FileServer;
  let body: Buffer;

  beforeAll(async () => {
    body = await paddedPng();
    files = await startFileServer((request, response) => sendSlowly(response, body, request.url!.startsWith('/declared')));
  });
  afterAll(() => files.close());

  const gatewayWith = (env: Record<string, string>) =>
    startGateway(
      { API_TOKENS: TOKEN, OPERATOR_TOKENS: OPERATOR_TOKEN, FETCH_ALLOW_LOOPBACK: 'true', FETCH_MAX_BYTES: String(FETCH_MAX_BYTES), LOG_LEVEL: 'warn', ...env },
      { engines: enginesWith({ ocr: new BlankOcrEngine() }) },
    );

  it('20 concurrent downloads of 6 MiB stay within a 24 MiB budget, and all are answered', async () => {
    const gateway = await gatewayWith({ FETCH_MAX_IN_FLIGHT_BYTES: String(IN_FLIGHT_BYTES) });
    try {
      const bounded = await wave(gateway, files);
      expect(bounded.statuses).toEqual(Array(DOWNLOADS).fill(200));
      expect(bounded.peakAccountedBytes).toBeLessThanOrEqual(IN_FLIGHT_BYTES);
      expect(bounded.peakAccountedBytes).toBeGreaterThanOrEqual(2 * FILE_BYTES); // they did run side by side
      expect(await downloadBytes(gateway)).toBe(0); // every reservation was given back
    } finally {
      await gateway.close();
    }
  });

  it('the same wave with room for all of it holds them all at once', async () => {
    const gateway = await gatewayWith({ FETCH_MAX_IN_FLIGHT_BYTES: String(DOWNLOADS * FETCH_MAX_BYTES) });
    try {
      const unbounded = await wave(gateway, files);
      expect(unbounded.peakAccountedBytes).toBeGreaterThan(IN_FLIGHT_BYTES * 3);
    } finally {
      await gateway.close();
    }
  });

  it('a download that finds no room within FETCH_QUEUE_TIMEOUT_MS is refused 503 overloaded, retryable, with Retry-After', async () => {
    const gateway = await gatewayWith({ FETCH_MAX_IN_FLIGHT_BYTES: String(FETCH_MAX_BYTES), FETCH_QUEUE_TIMEOUT_MS: '200' });
    try {
      const request = (index: number) =>
        gateway.app.inject({
          method: 'POST',
          url: PATH,
          headers: { authorization: `Bearer ${TOKEN}` },
          payload: { request_id: `refused-${index}`, files: [fileReference(files, 1, `chunked-${index}.png`)] },
        });
      const [first, second] = await Promise.all([request(1), request(2)]);
      expect(first.statusCode).toBe(200);
      expect(second.statusCode).toBe(503);
      expect(second.json()).toEqual({ error: { kind: 'overloaded', message: expect.stringContaining('FETCH_MAX_IN_FLIGHT_BYTES'), retryable: true } });
      expect(second.headers['retry-after']).toBe('5');
      expect(await downloadBytes(gateway)).toBe(0);
    } finally {
      await gateway.close();
    }
  });
});
