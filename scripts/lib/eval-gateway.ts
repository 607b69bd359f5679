/**
 * For eval:ocr, bench:ocr, eval:deid and bench:deid: the real gateway listening on a free port
 * with the OCR engine (settings from the environment, as an operator would run it), a local
 * file server for the pages, an operation called over HTTP with local files, and the
 * character error rate.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { CaseOcrResponse } from '../../src/contract/case-files.js';
import { sharedCount } from '../../src/operations/case-file-process/redact-page.js';
import { editDistance } from './error-rates.js';
import { startFileServer } from './file-server.js';
import { baseUrl as baseUrlOf, startReadyGateway } from './gateway.js';
import { startGatewayProcess, untilReady, type GatewayProcess } from './gateway-process.js';

export interface GatewayAnswer<T> {
  status: number;
  body: T | { error: { kind: string; message: string; retryable?: boolean } };
  ms: number;
}

export interface OcrEvalGateway {
  /** POSTs one case-ocr request for these local files; throws on a non-200 answer. */
  caseOcr(paths: string[]): Promise<{ body: CaseOcrResponse; ms: number }>;
  /** POSTs a request of `{request_id, files}` for these local files to an operation's route, e.g. `/ai/v1/case-file-process`. */
  postFiles<T>(route: string, paths: string[]): Promise<GatewayAnswer<T>>;
  /** http://127.0.0.1:port of the gateway. */
  baseUrl: string;
  model: string;
  close(): Promise<void>;
}

/** The operator's OCR settings: as many workers as OCR_WORKERS names, loading their models at once. */
const OCR_START_WITHIN_MS = 120_000;
/** The OCR engine over the operator's settings, the logs quiet, the local file server allowed. */
const ocrEnv = (env: Record<string, string>) => ({ OCR_ENGINE: 'ppocr', ...process.env, LOG_LEVEL: 'warn', FETCH_ALLOW_LOOPBACK: 'true', ...env });

/**
 * The gateway with the OCR engine the environment configures, listening, once its workers have
 * loaded; a file server that hands it the local files named in each request.
 */
export async function startOcrEvalGateway(env: Record<string, string> = {}): Promise<OcrEvalGateway> {
  const gateway = await startReadyGateway('ocr', OCR_START_WITHIN_MS, ocrEnv(env), { listen: true });
  const client = await ocrClient(baseUrlOf(gateway.app));
  return {
    ...client,
    model: gateway.status.model ?? '?',
    close: async () => {
      await client.close();
      await gateway.close();
    },
  };
}

export interface OcrGatewayProcess extends OcrEvalGateway {
  /** CPU time the gateway's process has spent so far, all its threads together, in ms. */
  cpuMs(): number;
  pid: number;
}

/**
 * startOcrEvalGateway's gateway as its own process, compiled, as production runs it (build it
 * first): what it spends is then its own, apart from the client's and the file server's work.
 */
export async function startOcrGatewayProcess(env: Record<string, string> = {}): Promise<OcrGatewayProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'ocr-gateway-'));
  let gateway: GatewayProcess | undefined;
  try {
    gateway = await startGatewayProcess(ocrEnv({ DATA_DIR: dataDir, ...env }));
    await untilReady(gateway, OCR_START_WITHIN_MS);
    const readyz = (await fetch(`${gateway.baseUrl}/readyz`).then((response) => response.json())) as { engines?: { ocr?: { model?: string } } };
    const client = await ocrClient(gateway.baseUrl);
    const { child, cpuMs, stop } = gateway;
    return {
      ...client,
      model: readyz.engines?.ocr?.model ?? '?',
      pid: child.pid!,
      cpuMs,
      close: async () => {
        await client.close();
        await stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await gateway?.stop();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** Requests to the gateway at `baseUrl` for local files, which a file server of this process hands it. */
async function ocrClient(baseUrl: string): Promise<Omit<OcrEvalGateway, 'model'>> {
  // Serves any local file the eval names: `/file?path=<absolute path>`.
  const files = await startFileServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').searchParams.get('path') ?? '';
    readFile(path).then(
      (bytes) => response.end(bytes),
      () => response.writeHead(404).end(),
    );
  });
  let requests = 0;
  const postFiles = async <T>(route: string, paths: string[]): Promise<GatewayAnswer<T>> => {
    const started = performance.now();
    const response = await fetch(baseUrl + route, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        request_id: `eval-${++requests}`,
        files: paths.map((path, i) => ({
          upload_file_id: i + 1,
          bucket: 'eval',
          object_key: path,
          file_name: basename(path),
          file_url: files.url(`/file?path=${encodeURIComponent(path)}`),
        })),
      }),
    });
    return { status: response.status, body: (await response.json()) as GatewayAnswer<T>['body'], ms: performance.now() - started };
  };
  return {
    baseUrl,
    postFiles,
    caseOcr: async (paths) => {
      const { status: code, body, ms } = await postFiles<CaseOcrResponse>('/ai/v1/case-ocr', paths);
      if ('error' in body) throw new Error(`case-ocr answered ${code} ${body.error.kind}: ${body.error.message}`);
      return { body, ms };
    },
    close: () => files.close(),
  };
}

/** Content characters only: layout whitespace is not an OCR error. */
const comparable = (text: string) => [...text.normalize('NFKC').replace(/\s+/g, '')];

/** Character error rate of `hypothesis` against `reference`, whitespace and width ignored. */
export function characterErrorRate(hypothesis: string, reference: string): number {
  const ref = comparable(reference);
  return ref.length ? editDistance(ref, comparable(hypothesis)) / ref.length : 0;
}

/** Share of the reference's characters the hypothesis holds, counted as multisets (order and whitespace ignored). */
export function charRecall(hypothesis: string, reference: string): number {
  const ref = comparable(reference);
  return ref.length ? sharedCount(ref, comparable(hypothesis)) / ref.length : 1;
}

/** Fewest edits that turn `line` into some run of characters of `text` (the line found anywhere in it). */
function editsToFind(line: readonly string[], text: readonly string[]): number {
  let previous = new Array<number>(text.length + 1).fill(0);
  for (let i = 1; i <= line.length; i++) {
    const current = [i];
    for (let j = 1; j <= text.length; j++) {
      current[j] = Math.min(previous[j - 1]! + (line[i - 1] === text[j - 1] ? 0 : 1), previous[j]! + 1, current[j - 1]! + 1);
    }
    previous = current;
  }
  return Math.min(...previous);
}

/** A reference line counts as lost when over this share of its characters cannot be found in the text read (a line cut short or read as noise). */
const LOST_LINE = 0.25;

/** The 0-based numbers of the reference's lines that the hypothesis lost, wherever in it the others are read. */
export function lostLines(hypothesis: string, reference: string): number[] {
  const text = comparable(hypothesis);
  return reference.split('\n').flatMap((line, index) => {
    const chars = comparable(line);
    return chars.length > 0 && editsToFind(chars, text) > LOST_LINE * chars.length ? [index] : [];
  });
}

export const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
