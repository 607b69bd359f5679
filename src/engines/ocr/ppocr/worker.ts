/**
 * One PP-OCR worker thread: loads the three models once (their sessions on `threads` intra-op
 * threads), says `ready` (or `failed` with the reason), then reads the pages it is sent, one at a
 * time. Nothing here logs or keeps what it reads.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { OcrPage } from '../../types.js';
import type { PpOcrModelFiles } from './models.js';
import { loadModels, readPage, type PipelineSettings } from './pipeline.js';

export interface WorkerConfig {
  files: PpOcrModelFiles;
  settings: PipelineSettings;
}

export interface PageRequest {
  id: number;
  image: Uint8Array;
  rotation?: OcrPage['rotation'];
}

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'failed'; reason: string }
  | { type: 'page'; id: number; page: OcrPage }
  | { type: 'error'; id: number; reason: string };

const port = parentPort!;
const { files, settings } = workerData as WorkerConfig;
const post = (message: WorkerMessage) => port.postMessage(message);
const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 300);

try {
  const models = await loadModels(files, settings.threads);
  port.on('message', (request: PageRequest) => {
    readPage(models, request.image, settings, request.rotation).then(
      (page) => post({ type: 'page', id: request.id, page }),
      (error: unknown) => post({ type: 'error', id: request.id, reason: reasonOf(error) }),
    );
  });
  post({ type: 'ready' });
} catch (error) {
  post({ type: 'failed', reason: reasonOf(error) });
}
