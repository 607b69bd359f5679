/**
 * One PP-OCR worker thread: loads the three models once (their sessions on `threads` intra-op
 * threads), says `ready` (or `failed` with the reason), then reads the pages it is sent, one at a
 * time. A page is stopped between model calls when it is cancelled (never by terminating the
 * thread mid-run, which would abort the process). Nothing here logs or keeps what it reads.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { OcrPage, PageLie } from '../../types.js';
import type { PpOcrModelFiles } from './models.js';
import { loadModels, readPage, type PipelineSettings } from './pipeline.js';

export interface WorkerConfig {
  /** The prepared models, already verified. */
  files: PpOcrModelFiles;
  settings: PipelineSettings;
}

export type PageRequest =
  | { type: 'read'; id: number; image: Uint8Array; lie?: PageLie; closerLook?: boolean; asItLies?: boolean }
  | { type: 'cancel'; id: number };

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'failed'; reason: string }
  | { type: 'page'; id: number; page: OcrPage }
  | { type: 'error'; id: number; reason: string };

const port = parentPort!;
const { files, settings } = workerData as WorkerConfig;
const post = (message: WorkerMessage) => port.postMessage(message);
/**
 * A closer look detects at the page's own resolution, up to this long side: a 300 dpi A4 scan is
 * 3508 pixels long, and its print is large enough at 2048 (the detector's time grows with the area).
 */
const CLOSER_LOOK_MAX_SIDE = 2048;
const closerSettings: PipelineSettings = { ...settings, detection: { ...settings.detection, maxSide: Math.max(settings.detection.maxSide, CLOSER_LOOK_MAX_SIDE) } };
const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 300);

try {
  const models = await loadModels(files, settings.threads, settings.device);
  const reading = new Map<number, AbortController>();
  port.on('message', (request: PageRequest) => {
    if (request.type === 'cancel') return reading.get(request.id)?.abort(new Error('the page was cancelled'));
    const cancel = new AbortController();
    reading.set(request.id, cancel);
    readPage(models, request.image, request.closerLook ? closerSettings : settings, request, cancel.signal)
      .then(
        (page) => post({ type: 'page', id: request.id, page }),
        (error: unknown) => post({ type: 'error', id: request.id, reason: reasonOf(error) }),
      )
      .finally(() => reading.delete(request.id));
  });
  post({ type: 'ready' });
} catch (error) {
  post({ type: 'failed', reason: reasonOf(error) });
}
