/**
 * What eval:ocr, bench:ocr, eval:deid and bench:deid share: the gateway with the real OCR engine
 * (the operator's settings from the environment apply), its document operations called with
 * local files, and the native tesseract CLI as an independent reader.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { CaseOcrResponse } from '../../src/contract/case-files.js';
import { localFileReference, serveLocalFiles } from './file-server.js';
import { postFiles, startOcrGateway, type TestGateway } from './gateway.js';

const run = promisify(execFile);

export interface GatewayAnswer<T> {
  status: number;
  body: T | { error: { kind: string; message: string; retryable?: boolean } };
  ms: number;
}

export interface OcrEvalGateway {
  gateway: TestGateway;
  /** The OCR engine's model label. */
  model: string;
  /** POSTs one `{request_id, files}` request for these local files to an operation's route, e.g. `/ai/v1/case-file-process`. */
  postFiles<T>(route: string, paths: string[]): Promise<GatewayAnswer<T>>;
  /** POSTs one case-ocr request for these local files; throws on an answer other than 200. */
  caseOcr(paths: string[]): Promise<{ body: CaseOcrResponse; ms: number }>;
  close(): Promise<void>;
}

export async function startOcrEvalGateway(env: Record<string, string> = {}): Promise<OcrEvalGateway> {
  const gateway = await startOcrGateway({ ...process.env, LOG_LEVEL: 'warn', ...env });
  const files = await serveLocalFiles();
  let requests = 0;
  const post = async <T>(route: string, paths: string[]): Promise<GatewayAnswer<T>> => {
    const started = performance.now();
    const references = paths.map((path, i) => localFileReference(files, i + 1, path));
    const { status, json } = await postFiles(gateway, route, `eval-${++requests}`, references);
    return { status, body: json as GatewayAnswer<T>['body'], ms: performance.now() - started };
  };
  return {
    gateway,
    model: gateway.app.engineStatus('ocr').model ?? '?',
    postFiles: post,
    caseOcr: async (paths) => {
      const { status, body, ms } = await post<CaseOcrResponse>('/ai/v1/case-ocr', paths);
      if ('error' in body) throw new Error(`case-ocr answered ${status} ${body.error.kind}: ${body.error.message}`);
      return { body, ms };
    },
    close: async () => {
      await files.close();
      await gateway.close();
    },
  };
}

export const TESSERACT_LANGS = 'chi_sim+eng';

/** The native tesseract CLI's reading of an image file (OMP_THREAD_LIMIT=1: one core per page, like a tesseract.js worker). */
export async function tesseractCli(path: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('tesseract', [path, 'stdout', ...args], {
    env: { ...process.env, OMP_THREAD_LIMIT: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}
