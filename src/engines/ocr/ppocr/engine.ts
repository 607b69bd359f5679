/**
 * The PP-OCR engine: PP-OCRv4's detector, direction classifier and recogniser on onnxruntime-node,
 * in a pool of worker threads (each with its own sessions), so pages are read in parallel and the
 * event loop never waits on a model. The models are the prepared ones (prepared.ts), each file
 * checked against its hash first. `ready` once every worker has loaded them; `unavailable` when
 * they were never prepared, `failed` with the reason when a file is not what was prepared or
 * cannot be loaded.
 */
import type { Worker } from 'node:worker_threads';
import './no-telemetry.js';
import { GatewayError, isGatewayError } from '../../../errors.js';
import type { Logger } from '../../../platform/logger.js';
import { raiseWorkerOldSpaceFloor, siblingWorker } from '../../../platform/process/index.js';
import { EngineLifecycle } from '../../lifecycle.js';
import type { EngineStatus, OcrEngine, OcrPage, RecognizeOptions } from '../../types.js';
import { WorkerPool, type PoolWorker } from '../pool.js';
import type { PipelineSettings } from './pipeline.js';
import { PreparedModelsProblem, readPreparedManifest, recogniserFor, verifiedModelFiles, wantedRecogniser, type OcrPrecision, type RecogniserVariant } from './prepared.js';
import type { PageRequest, WorkerConfig, WorkerMessage } from './worker.js';

export interface PpOcrSettings extends PipelineSettings {
  /** `int8`: the recogniser's dense convolutions in 8-bit integers, on the CPU, when it was prepared so. */
  precision: OcrPrecision;
  workers: number;
  startTimeoutMs: number;
}

/**
 * A PP-OCR worker's heap is left uncompacted below this (see raiseWorkerOldSpaceFloor): its live
 * JS heap is ~14 MB, while a page allocates ~20-40 MB of pixels and tensors, which V8 counts against
 * a limit set from the JS heap alone; without a floor one or two full collections run per A4 page,
 * with it one every few pages. A worker may hold this much in old space and unreclaimed buffers.
 */
const OLD_SPACE_FLOOR_MB = 64;

/** A worker thread with its models loaded, reading one page at a time. */
class PageReader implements PoolWorker {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(page: OcrPage): void; reject(error: Error): void }>();

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: WorkerMessage) => {
      if (message.type !== 'page' && message.type !== 'error') return;
      const call = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.type === 'page') call?.resolve(message.page);
      else call?.reject(new Error(message.reason));
    });
    worker.on('exit', (code) => this.failAll(new Error(`the OCR worker exited (code ${code})`)));
    worker.on('error', (error) => this.failAll(error));
  }

  static start(config: WorkerConfig): Promise<PageReader> {
    raiseWorkerOldSpaceFloor(OLD_SPACE_FLOOR_MB);
    const worker = siblingWorker(import.meta.url, 'worker', { workerData: config });
    return new Promise((resolve, reject) => {
      const onMessage = (message: WorkerMessage) => {
        if (message.type === 'ready') settle(() => resolve(new PageReader(worker)));
        if (message.type === 'failed') settle(() => reject(new Error(message.reason)), true);
      };
      const onError = (error: Error) => settle(() => reject(error), true);
      const onExit = (code: number) => settle(() => reject(new Error(`the OCR worker exited (code ${code}) while loading`)));
      const settle = (done: () => void, terminate = false) => {
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (terminate) void worker.terminate();
        done();
      };
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    });
  }

  /** Settles when the worker is done with the page: read, failed, or stopped after `signal` aborted. */
  read(image: Buffer, options: Pick<RecognizeOptions, 'rotation' | 'perspective' | 'closerLook' | 'asItLies'>, signal: AbortSignal): Promise<OcrPage> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const id = this.nextId++;
    const cancel = () => this.send({ type: 'cancel', id });
    signal.addEventListener('abort', cancel, { once: true });
    return new Promise<OcrPage>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // A copy of its own, moved to the worker rather than copied again.
      const copy = new ArrayBuffer(image.byteLength);
      new Uint8Array(copy).set(image);
      const { rotation, perspective, closerLook, asItLies } = options;
      const lie = rotation === undefined ? {} : { lie: { rotation, ...(perspective ? { perspective } : {}) } };
      this.send({ type: 'read', id, image: new Uint8Array(copy), ...lie, ...(closerLook ? { closerLook } : {}), ...(asItLies ? { asItLies } : {}) }, [copy]);
    }).finally(() => signal.removeEventListener('abort', cancel));
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }

  private send(request: PageRequest, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(request, transfer);
  }

  private failAll(error: Error): void {
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
  }
}

/**
 * A PP-OCR worker is kept however many pages it reads (it is replaced only after a page fails in
 * it): onnxruntime's buffers grow only to the largest page the side limits allow, while a fresh
 * worker's threads take malloc arenas of their own and the old worker's freed memory stays
 * behind in the process, so each replacement raised the gateway's resident memory for good.
 */
const PAGES_BEFORE_REPLACEMENT = Number.POSITIVE_INFINITY;

export class PpOcrEngine implements OcrEngine {
  readonly name = 'ocr' as const;
  private readonly lifecycle = new EngineLifecycle('loading the PP-OCR models into the OCR workers');
  private recogniser: RecogniserVariant = 'fp32';
  private pool: WorkerPool<PageReader> | undefined;
  private starting: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly settings: PpOcrSettings,
    /** The folder of the prepared models (see prepared.ts). */
    private readonly modelsDir: string,
    private readonly logger?: Logger,
  ) {
    this.lifecycle.runsOn(deviceOf(settings, this.recogniser));
  }

  status(): EngineStatus {
    return this.lifecycle.status();
  }

  start(): Promise<void> {
    this.starting ??= this.load();
    return this.starting;
  }

  private async load(): Promise<void> {
    let config: WorkerConfig;
    try {
      const manifest = await readPreparedManifest(this.modelsDir);
      this.lifecycle.serves(manifest.model);
      this.recogniser = recogniserFor(manifest, this.settings.precision, this.settings.device);
      this.lifecycle.runsOn(deviceOf(this.settings, this.recogniser));
      if (this.recogniser !== wantedRecogniser(this.settings.precision, this.settings.device)) {
        this.logger?.warn({ engine: 'ocr' }, 'the prepared PP-OCR recogniser has no int8 form (it is not the calibrated one): it runs in fp32');
      }
      config = { files: await verifiedModelFiles(this.modelsDir, manifest, this.recogniser), settings: pipelineSettings(this.settings) };
    } catch (error) {
      const missing = error instanceof PreparedModelsProblem && error.kind === 'missing';
      return this.fail(missing ? 'unavailable' : 'failed', error instanceof Error ? error.message : String(error));
    }
    if (this.closed) return;
    this.pool = new WorkerPool(() => PageReader.start(config), this.settings.workers, PAGES_BEFORE_REPLACEMENT, 'cooperative');
    const started = Date.now();
    try {
      await this.pool.start(this.settings.startTimeoutMs);
    } catch (error) {
      await this.pool.close();
      this.pool = undefined;
      return this.fail('failed', `the PP-OCR models could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.lifecycle.ready();
    this.logger?.info({ engine: 'ocr', workers: this.settings.workers, threads: this.settings.threads, ms: Date.now() - started, model: this.status().model, recogniser: this.recogniser }, 'OCR engine ready');
  }

  recognize(image: Buffer, signal: AbortSignal, options?: RecognizeOptions): Promise<OcrPage> {
    const pool = this.pool;
    if (this.lifecycle.state !== 'ready' || !pool) return Promise.reject(new GatewayError('engine_unavailable', `the ocr engine is ${this.lifecycle.state}`));
    return pool.use(signal, (reader, stop) => reader.read(image, options ?? {}, stop)).catch((error: unknown) => {
      if (signal.aborted || isGatewayError(error)) throw error;
      throw new GatewayError('engine_failed', `OCR failed: ${error instanceof Error ? error.message : String(error)}`, { retryable: true });
    });
  }

  /** Waits for a start in progress: worker threads still loading their models must not outlive the engine. */
  async close(): Promise<void> {
    this.closed = true;
    await this.starting?.catch(() => undefined);
    this.lifecycle.become('unavailable', 'the OCR engine is closed');
    await this.pool?.close();
  }

  private fail(state: 'unavailable' | 'failed', reason: string): void {
    this.lifecycle.become(state, reason);
    this.logger?.error({ engine: 'ocr', reason }, 'OCR engine cannot serve');
  }
}

const deviceOf = (settings: PpOcrSettings, recogniser: RecogniserVariant): string =>
  `${settings.device}: ${settings.workers} PP-OCR workers × ${settings.threads} threads, recogniser ${recogniser}`;

const pipelineSettings = ({ detection, batchSize, threads, device }: PpOcrSettings): PipelineSettings => ({ detection, batchSize, threads, device });
