/**
 * Shared by eval:ocr, bench:ocr, eval:deid and bench:deid: the real gateway listening on a free
 * port with the OCR engine, a local file server for the pages, an operation called over HTTP
 * with local files, and character error rate.
 */
import { readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import type { CaseOcrResponse } from '../../src/contract/case-files.js';
import { createLogger } from '../../src/platform/logger.js';

export interface GatewayAnswer<T> {
  status: number;
  body: T | { error: { kind: string; message: string; retryable?: boolean } };
  ms: number;
}

export interface OcrGateway {
  /** POSTs one case-ocr request for these local files; throws on a non-200 answer. */
  caseOcr(paths: string[]): Promise<{ body: CaseOcrResponse; ms: number }>;
  /** POSTs a request of `{request_id, files}` for these local files to an operation's route, e.g. `/ai/v1/case-file-process`. */
  postFiles<T>(route: string, paths: string[]): Promise<GatewayAnswer<T>>;
  /** http://127.0.0.1:port of the gateway. */
  baseUrl: string;
  model: string;
  close(): Promise<void>;
}

async function serveFiles(): Promise<{ server: Server; urlOf(path: string): string }> {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').searchParams.get('path') ?? '');
    readFile(path).then(
      (bytes) => response.end(bytes),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return { server, urlOf: (path) => `http://127.0.0.1:${port}/file?path=${encodeURIComponent(resolve(path))}` };
}

export async function startOcrGateway(env: Record<string, string> = {}): Promise<OcrGateway> {
  const dataDir = await mkdtemp(join(tmpdir(), 'eval-ocr-'));
  const config = loadConfig({
    ...process.env,
    ...env,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    FETCH_ALLOW_LOOPBACK: 'true',
    OCR_ENGINE: 'tesseract',
  });
  const app = await buildApp({ config, logger: createLogger('warn') });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const deadline = Date.now() + 120_000;
  while (app.engineStatus('ocr').state !== 'ready') {
    const status = app.engineStatus('ocr');
    if (status.state === 'failed' || Date.now() > deadline) throw new Error(`OCR not ready: ${status.state} ${status.reason ?? ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const files = await serveFiles();
  const { port } = app.server.address() as { port: number };
  const baseUrl = `http://127.0.0.1:${port}`;
  let requests = 0;
  const postFiles = async <T>(route: string, paths: string[]): Promise<GatewayAnswer<T>> => {
    const started = performance.now();
    const response = await fetch(baseUrl + route, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        request_id: `eval-${++requests}`,
        files: paths.map((path, i) => ({ upload_file_id: i + 1, bucket: 'eval', object_key: path, file_name: basename(path), file_url: files.urlOf(path) })),
      }),
    });
    return { status: response.status, body: (await response.json()) as GatewayAnswer<T>['body'], ms: performance.now() - started };
  };
  return {
    model: app.engineStatus('ocr').model ?? '?',
    baseUrl,
    postFiles,
    caseOcr: async (paths) => {
      const { status, body, ms } = await postFiles<CaseOcrResponse>('/ai/v1/case-ocr', paths);
      if ('error' in body) throw new Error(`case-ocr answered ${status} ${body.error.kind}: ${body.error.message}`);
      return { body, ms };
    },
    close: async () => {
      files.server.close();
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Content characters only: layout whitespace is not an OCR error. */
const comparable = (text: string) => [...text.normalize('NFKC').replace(/\s+/g, '')];

function editDistance(a: string[], b: string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Character error rate of `hypothesis` against `reference`, whitespace and width ignored. */
export function characterErrorRate(hypothesis: string, reference: string): number {
  const ref = comparable(reference);
  return ref.length ? editDistance(comparable(hypothesis), ref) / ref.length : 0;
}

export const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
