/**
 * One page through PP-OCR: detection, the line direction classifier, batched recognition, the
 * page's orientation, and the OcrPage. The page's quarter turn is found from what was read, not
 * by reading the page again: after the classifier has turned each line the right way up, the
 * direction most of the text runs in says how the page lies.
 */
import { readFile } from 'node:fs/promises';
import ort from 'onnxruntime-node';
import type { OcrPage } from '../../types.js';
import { detectionInput, textRegions, type DetectionSettings } from './detect.js';
import type { Point } from './geometry.js';
import { decodeRgb } from './image.js';
import { withBestPath } from './onnx/best-path.js';
import { quantizeConvolutions } from './onnx/quantize.js';
import { simplifyModel } from './onnx/simplify.js';
import type { Quantization } from './calibration.js';
import { readAlphabet, type PpOcrModelFiles } from './models.js';
import { assemblePage, type Rotation } from './page.js';
import { readLines, type LineReading, type MakeTensor } from './recognize.js';

export type OcrDevice = 'cpu' | 'cuda';

export interface PipelineSettings {
  detection: DetectionSettings;
  /** Lines per classifier and recogniser call. */
  batchSize: number;
  /** Intra-op threads of each model session. */
  threads: number;
  device: OcrDevice;
}

export interface PpOcrModels {
  detector: ort.InferenceSession;
  classifier: ort.InferenceSession;
  recogniser: ort.InferenceSession;
  alphabet: string[];
}

/**
 * White added all round the page before it is read: the detector finds no line that touches the
 * image's edge (a photo cropped to one line of text read 50% CER without it).
 */
const PAGE_MARGIN = 16;

const makeTensor: MakeTensor = (data, dims) => new ort.Tensor('float32', data, dims);

/** Loads the three models; the recogniser in 8-bit integers when `quantization` is given (see quantize.ts). */
export async function loadModels(files: PpOcrModelFiles, threads: number, device: OcrDevice = 'cpu', quantization?: Quantization): Promise<PpOcrModels> {
  const options: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // No CPU fallback for `cuda`: an operator who asked for the GPU learns it is not used.
    executionProviders: [device === 'cuda' ? { name: 'cuda', deviceId: 0 } : 'cpu'],
  };
  const create = async (path: string, recogniser = false) =>
    ort.InferenceSession.create(await modelBytes(path, recogniser, quantization), options).catch((error: unknown) => {
      if (device !== 'cuda') throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`onnxruntime's CUDA execution provider could not be used (${reason}); the GPU image installs it, or set OCR_DEVICE=cpu`);
    });
  const alphabet = await readAlphabet(files.alphabet);
  // Every session settles before a failure is reported: the thread may be terminated once it is,
  // and a thread terminated while onnxruntime works in it aborts the whole process.
  const sessions = await Promise.allSettled([create(files.detector), create(files.classifier), create(files.recogniser, true)]);
  const loaded = sessions.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = sessions.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(loaded.map((session) => session.release()));
    throw failed.reason;
  }
  const [detector, classifier, recogniser] = loaded as [ort.InferenceSession, ort.InferenceSession, ort.InferenceSession];
  return { detector, classifier, recogniser, alphabet };
}

/**
 * The model file with its exported activations rewritten exactly into fewer operations (see
 * simplifyModel), the recogniser quantized when asked and answering its best path (see
 * withBestPath); a file that is no ONNX model goes to onnxruntime as it is, to be refused there
 * with its own reason.
 */
async function modelBytes(path: string, recogniser: boolean, quantization: Quantization | undefined): Promise<Uint8Array> {
  const bytes = await readFile(path);
  let simplified: Uint8Array;
  try {
    simplified = simplifyModel(bytes).model;
  } catch {
    return bytes;
  }
  if (!recogniser) return simplified;
  const model = quantization ? quantizeConvolutions(simplified, quantization.calibration, quantization.weightLevels) : simplified;
  return withBestPath(model);
}

export async function releaseModels(models: PpOcrModels): Promise<void> {
  await Promise.all([models.detector.release(), models.classifier.release(), models.recogniser.release()]);
}

/**
 * Reads one page image (any format sharp reads); `rotation`, when known, is taken instead of
 * found. Stops with the signal's reason before the next model call once `signal` aborts.
 */
export async function readPage(models: PpOcrModels, bytes: Uint8Array, settings: PipelineSettings, rotation: Rotation | undefined, signal: AbortSignal): Promise<OcrPage> {
  const image = await decodeRgb(bytes, PAGE_MARGIN);
  const input = await detectionInput(image, settings.detection.maxSide);
  signal.throwIfAborted();
  const detection = await models.detector.run({ [models.detector.inputNames[0]!]: makeTensor(input.tensor, [1, 3, input.height, input.width]) });
  const probability = detection[models.detector.outputNames[0]!]!.data as Float32Array;
  const regions = textRegions(probability, input, settings.detection);
  const readings = await readLines(models, image, regions.map((r) => r.quad), models.alphabet, settings.batchSize, makeTensor, signal);
  return assemblePage(readings, rotation ?? pageRotation(readings), image.width - 2 * PAGE_MARGIN, image.height - 2 * PAGE_MARGIN, PAGE_MARGIN);
}

/**
 * The clockwise quarter turn that makes the page upright: text that runs down the image was
 * turned a quarter clockwise (turn it 270 more), text that runs up it a quarter the other way,
 * text that runs right to left is upside down. Each line votes with the characters it holds.
 */
export function pageRotation(readings: readonly LineReading[]): Rotation {
  const votes = new Map<Rotation, number>();
  for (const reading of readings) {
    const direction = runDirection(reading.quad[0], reading.quad[1]);
    votes.set(direction, (votes.get(direction) ?? 0) + reading.chars.length);
  }
  let best: Rotation = 0;
  for (const [rotation, count] of votes) if (count > (votes.get(best) ?? 0)) best = rotation;
  return best;
}

function runDirection(from: Point, to: Point): Rotation {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  if (Math.abs(dx) >= Math.abs(dy)) return dx >= 0 ? 0 : 180;
  return dy > 0 ? 270 : 90;
}
