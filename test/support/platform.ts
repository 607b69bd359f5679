import type { IncomingHttpHeaders } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { REFERENCE_REPORT_PATH } from '../../src/contract/advice.js';
import { createLogger } from '../../src/platform/logger.js';
import { buildReceiverApp } from '../../src/receiver/app.js';
import { openReceiverDatabase } from '../../src/receiver/store.js';
import { startFileServer } from '../../scripts/lib/file-server.js';

export interface ReceivedCallback {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** The MDT platform as AI-3 sees it: the reference receiver, on a port of its own. */
export interface Platform {
  url: string;
  /** Every callback POSTed, refused ones included. */
  received: ReceivedCallback[];
  receiver: FastifyInstance;
  report(requestId: string): Promise<Record<string, unknown> | undefined>;
  /** Answers every callback from now on. */
  recover(): void;
  close(): Promise<void>;
}

/**
 * The reference receiver behind a server that refuses the first `failFirst` callbacks with 503
 * (Infinity: until `recover()`); other requests (its report lookup) pass straight through.
 */
export async function startPlatform(options: { secret: string | undefined; failFirst?: number }): Promise<Platform> {
  const dir = await mkdtemp(join(tmpdir(), 'advice-platform-'));
  const db = await openReceiverDatabase(dir);
  const receiver = await buildReceiverApp({
    db,
    secret: options.secret,
    toleranceSeconds: 300,
    allowUnsigned: options.secret === undefined,
    logger: createLogger('silent'),
  });
  const received: ReceivedCallback[] = [];
  let failures = options.failFirst ?? 0;
  const server = await startFileServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const callback = req.method === 'POST';
      const answer =
        callback && failures-- > 0
          ? Promise.resolve({ statusCode: 503, body: '' })
          : receiver.inject({ method: callback ? 'POST' : 'GET', url: req.url ?? '/', headers: req.headers, ...(callback ? { payload: body } : {}) });
      void answer.then((response) => {
        if (callback) received.push({ headers: req.headers, body, status: response.statusCode });
        res.writeHead(response.statusCode, { 'content-type': 'application/json' }).end(response.body);
      });
    });
  });
  return {
    url: server.url(''),
    received,
    receiver,
    recover: () => {
      failures = 0;
    },
    report: async (requestId) => {
      const response = await receiver.inject({ method: 'GET', url: REFERENCE_REPORT_PATH.replace(':request_id', requestId) });
      return response.statusCode === 200 ? response.json<Record<string, unknown>>() : undefined;
    },
    close: async () => {
      await server.close();
      await receiver.close();
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
