/**
 * A thread of models-at-once.ts: loads the PP-OCR models as a gateway worker does, is given the
 * recorded pages, and on `go` replays a page's model calls at a time, taking the next page not yet
 * taken (a counter the threads share) until none is left.
 */
import { parentPort, workerData } from 'node:worker_threads';
import ort from 'onnxruntime-node';
import { loadModels } from '../../src/engines/ocr/ppocr/pipeline.js';
import type { RecordedCall, ReplayConfig, ReplayMessage, ReplayRequest } from './models-at-once.js';

const port = parentPort!;
const post = (message: ReplayMessage) => port.postMessage(message);
const { files, threads } = workerData as ReplayConfig;

async function replay(pages: readonly RecordedCall[][], next: Int32Array): Promise<void> {
  for (let page = Atomics.add(next, 0, 1); page < pages.length; page = Atomics.add(next, 0, 1)) {
    for (const { model, feeds, fetches } of pages[page]!) {
      const tensors: Record<string, ort.Tensor> = {};
      for (const [name, { type, data, dims }] of Object.entries(feeds)) tensors[name] = new ort.Tensor(type, data, dims);
      await (fetches ? models[model].run(tensors, [...fetches]) : models[model].run(tensors));
    }
  }
}

const models = await loadModels(files, threads, 'cpu');
let work: { pages: readonly RecordedCall[][]; next: Int32Array } | undefined;
port.on('message', (request: ReplayRequest) => {
  if (request.type === 'pages') {
    work = { pages: request.pages, next: new Int32Array(request.next) };
    return post({ type: 'set' });
  }
  replay(work!.pages, work!.next).then(
    () => post({ type: 'done' }),
    (error: unknown) => post({ type: 'failed', reason: error instanceof Error ? error.message : String(error) }),
  );
});
post({ type: 'loaded' });
