/**
 * The PP-OCR models' own throughput with several pages read at once, as a gateway's workers read
 * them: each model call a reading made is recorded (which model, its inputs, the outputs asked
 * for), then `workers` threads, each with its own sessions, replay the pages' calls at the same
 * time, taking the next page as they finish one, with nothing else running. This is the ceiling
 * of any pipeline on these models at that many workers; one stream's time scaled by the workers
 * overstates it by whatever streams sharing a machine's caches and memory cost each other.
 */
import type { Worker } from 'node:worker_threads';
import type ort from 'onnxruntime-node';
import type { PpOcrModelFiles } from '../../src/engines/ocr/ppocr/models.js';
import type { PpOcrModels } from '../../src/engines/ocr/ppocr/pipeline.js';
import { siblingWorker } from '../../src/platform/process/index.js';

export type ModelName = 'detector' | 'classifier' | 'recogniser';

export interface RecordedTensor {
  type: ort.Tensor.Type;
  dims: readonly number[];
  data: Float32Array;
}

/** One model call: the model, the inputs it was given and the outputs it was asked for (all when none are named). */
export interface RecordedCall {
  model: ModelName;
  feeds: Record<string, RecordedTensor>;
  fetches?: readonly string[];
}

export type ReplayRequest = { type: 'pages'; pages: readonly RecordedCall[][]; next: SharedArrayBuffer } | { type: 'go' };
export type ReplayMessage = { type: 'loaded' } | { type: 'set' } | { type: 'done' } | { type: 'failed'; reason: string };

export interface ReplayConfig {
  files: PpOcrModelFiles;
  threads: number;
}

/** A model call, as the pipeline makes it: its inputs, and the outputs it wants when not all. */
export interface Call {
  feeds: ort.InferenceSession.FeedsType;
  fetches?: readonly string[];
}

type Run = (call: Call) => Promise<ort.InferenceSession.ReturnType>;

/** `models` whose every call goes through `around`, told which model it is, the call, and how to make it. */
export function aroundEachCall(models: PpOcrModels, around: (model: ModelName, call: Call, run: Run) => ReturnType<Run>): PpOcrModels {
  const wrapped = (model: ModelName) =>
    new Proxy(models[model], {
      get(target, property) {
        if (property !== 'run') return Reflect.get(target, property) as unknown;
        return (feeds: ort.InferenceSession.FeedsType, fetches?: readonly string[]) =>
          around(model, { feeds, ...(fetches ? { fetches } : {}) }, (call) => (call.fetches ? target.run(call.feeds, [...call.fetches]) : target.run(call.feeds)));
      },
    });
  return { ...models, detector: wrapped('detector'), classifier: wrapped('classifier'), recogniser: wrapped('recogniser') };
}

/** `models` with every call's inputs copied into `calls` as it is made. */
export function recordingModels(models: PpOcrModels, calls: RecordedCall[]): PpOcrModels {
  return aroundEachCall(models, (model, call, run) => {
    const copied: Record<string, RecordedTensor> = {};
    for (const [name, tensor] of Object.entries(call.feeds)) copied[name] = { type: tensor.type, dims: [...tensor.dims], data: (tensor.data as Float32Array).slice() };
    calls.push({ model, feeds: copied, ...(call.fetches ? { fetches: call.fetches } : {}) });
    return run(call);
  });
}

/** Threads with the models loaded, replaying recorded pages together. */
export class ModelReplayers {
  private constructor(private readonly workers: Worker[]) {}

  static async start(config: ReplayConfig, count: number): Promise<ModelReplayers> {
    const workers = Array.from({ length: count }, () => siblingWorker(import.meta.url, 'models-at-once-worker', { workerData: config }));
    const replayers = new ModelReplayers(workers);
    try {
      await replayers.everyOne('loaded');
    } catch (error) {
      await replayers.close();
      throw error;
    }
    return replayers;
  }

  /**
   * The clock and CPU time (this process's, all its threads) the workers took to replay every
   * page's calls, all at once; each page is replayed once, by whichever worker is free.
   */
  async replay(pages: readonly RecordedCall[][]): Promise<{ ms: number; cpuMs: number }> {
    const next = new SharedArrayBuffer(4);
    const set = this.everyOne('set');
    for (const worker of this.workers) worker.postMessage({ type: 'pages', pages, next } satisfies ReplayRequest);
    await set;
    const done = this.everyOne('done');
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (const worker of this.workers) worker.postMessage({ type: 'go' } satisfies ReplayRequest);
    await done;
    const ms = performance.now() - started;
    const { user, system } = process.cpuUsage(cpuBefore);
    return { ms, cpuMs: (user + system) / 1000 };
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }

  /** Resolves once every worker has said `type`; rejects on the first that fails or exits. */
  private everyOne(type: ReplayMessage['type']): Promise<void> {
    return Promise.all(
      this.workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const onMessage = (message: ReplayMessage) => {
              if (message.type === 'failed') settle(() => reject(new Error(message.reason)));
              else if (message.type === type) settle(resolve);
            };
            const onExit = (code: number) => settle(() => reject(new Error(`a model replay worker exited (code ${code})`)));
            const settle = (then: () => void) => {
              worker.off('message', onMessage).off('exit', onExit);
              then();
            };
            worker.on('message', onMessage).on('exit', onExit);
          }),
      ),
    ).then(() => undefined);
  }
}
