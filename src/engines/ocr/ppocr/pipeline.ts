/**
 * One page through PP-OCR: the page straightened when its lines are skewed (a photo taken at an
 * angle), detection, the line direction classifier, batched recognition, the page's quarter
 * turn, and the OcrPage. The detector finds lines well only when they lie near level or plumb
 * (at 30° it cut a form's rows into fragments and missed the name's line), so a skewed page is
 * turned straight once (see orientation.ts) and read as it then lies; the quarter turn is found from
 * what was read: after the classifier has turned each line the right way up, the direction most
 * of the text runs in says how the page lies. A page read at a turn already known (the
 * de-identification audit) is turned by it and read upright.
 */
import ort from 'onnxruntime-node';
import type { OcrPage } from '../../types.js';
import { detectionInput, textRegions, type DetectionInput, type DetectionSettings } from './detect.js';
import { decodeRgb, type RgbImage } from './image.js';
import { readAlphabet, type PpOcrModelFiles } from './models.js';
import { pageRotation, straighteningTurn } from './orientation.js';
import { normalDegrees, turnedSize, turnPoint, unturnPoint, type Point, type Quad, type Size } from '../plane.js';
import { assemblePage } from './page.js';
import type { OcrDevice } from './prepared.js';
import { mostlyUpsideDown, readLines, turnedHalf, upsideDown, type MakeTensor } from './recognize.js';

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

/** Loads the three prepared models (see prepared.ts). */
export async function loadModels(files: PpOcrModelFiles, threads: number, device: OcrDevice = 'cpu'): Promise<PpOcrModels> {
  const options: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // No CPU fallback for `cuda`: an operator who asked for the GPU learns it is not used.
    executionProviders: [device === 'cuda' ? { name: 'cuda', deviceId: 0 } : 'cpu'],
  };
  const create = async (path: string) =>
    ort.InferenceSession.create(path, options).catch((error: unknown) => {
      if (device !== 'cuda') throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`onnxruntime's CUDA execution provider could not be used (${reason}); the GPU image installs it, or set OCR_DEVICE=cpu`);
    });
  const alphabet = await readAlphabet(files.alphabet);
  // Every session settles before a failure is reported: the thread may be terminated once it is,
  // and a thread terminated while onnxruntime works in it aborts the whole process.
  const sessions = await Promise.allSettled([create(files.detector), create(files.classifier), create(files.recogniser)]);
  const loaded = sessions.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = sessions.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(loaded.map((session) => session.release()));
    throw failed.reason;
  }
  const [detector, classifier, recogniser] = loaded as [ort.InferenceSession, ort.InferenceSession, ort.InferenceSession];
  return { detector, classifier, recogniser, alphabet };
}

export async function releaseModels(models: PpOcrModels): Promise<void> {
  await Promise.all([models.detector.release(), models.classifier.release(), models.recogniser.release()]);
}

/**
 * Reads one page image (any format sharp reads); `rotation`, when known, is taken instead of
 * found. Stops with the signal's reason before the next model call once `signal` aborts.
 */
export async function readPage(models: PpOcrModels, bytes: Uint8Array, settings: PipelineSettings, rotation: number | undefined, signal: AbortSignal): Promise<OcrPage> {
  const sent = await decodeRgb(bytes, PAGE_MARGIN);
  const source = { width: sent.width - 2 * PAGE_MARGIN, height: sent.height - 2 * PAGE_MARGIN };
  const linesAt = (turn: number) => detectLines(models, bytes, sent, detectionTurn(turn), settings, signal);
  let turn = rotation ?? 0;
  let lines = await linesAt(turn);
  if (rotation === undefined) {
    turn = straighteningTurn(lines.probability, lines.input, settings.detection.threshold);
    if (detectionTurn(turn) !== lines.turn) lines = await linesAt(turn);
  }
  const flips = await upsideDown(models.classifier, sent, lines.quads, settings.batchSize, makeTensor, signal);
  const asRead = (quads: readonly Quad[]) => (mostlyUpsideDown(lines.quads, flips) ? quads.map(turnedHalf) : [...quads]);
  const readings = await readLines(models.recogniser, sent, asRead(lines.quads), models.alphabet, settings.batchSize, makeTensor, signal);
  const straight = turnedSize(source, turn);
  const turnedBy = (quad: Quad) => quad.map((p) => turnPoint(p, turn, source, straight)) as Quad;
  const quarter = rotation === undefined ? pageRotation(readings.map((reading) => ({ quad: turnedBy(reading.quad), chars: reading.chars.length }))) : 0;
  const page = assemblePage(readings, { source, margin: PAGE_MARGIN, rotation: turn + quarter, upright: turnedSize(source, turn + quarter) });
  return { ...page, detectionScale: Math.min(1, 1 / Math.max(lines.input.scaleX, lines.input.scaleY)) };
}

/**
 * Skews under this are detected as the page lies, turned by quarter turns only (exact, no
 * resampling), and the lines' points turned the rest of the way: the detector reads a skew this
 * small well, and faint small print resampled by a turn it can miss (a photo turned by 6° in
 * sharp, then straightened, lost its outpatient number's line). Past it the page is detected
 * turned straight: at 30° the detector cut a form's rows into fragments.
 */
const REDETECT_SKEW = 20;

/** The turn a page is detected at, for a page that stands `turn` degrees from straight and upright. */
function detectionTurn(turn: number): number {
  const quarter = Math.round(turn / 90) * 90;
  return Math.abs(turn - quarter) < REDETECT_SKEW ? normalDegrees(quarter) : turn;
}

/** The page's text lines, detected in the page turned `turn` degrees, in the page as sent and as turned. */
interface DetectedLines {
  turn: number;
  /** The turned page's size, without the margin. */
  canvas: Size;
  /** The detector's map of text pixels over the turned page. */
  probability: Float32Array;
  input: DetectionInput;
  /** Each line in the page as sent (with its margin), where it is cut from. */
  quads: Quad[];
  /** The same lines in the turned page. */
  turnedQuads: Quad[];
}

/**
 * The lines of the page turned `turn` degrees, as the detector sees them there, carried back onto
 * the page as sent: a skewed page is detected straight, and its lines are still cut from the
 * pixels as sent (a line resampled twice, turned and then cut, lost two digits of a number).
 */
async function detectLines(models: PpOcrModels, bytes: Uint8Array, sent: RgbImage, turn: number, settings: PipelineSettings, signal: AbortSignal): Promise<DetectedLines> {
  const image = turn ? await decodeRgb(bytes, PAGE_MARGIN, turn) : sent;
  const input = await detectionInput(image, detectionSide(settings.detection.maxSide, image, sent));
  signal.throwIfAborted();
  const detection = await models.detector.run({ [models.detector.inputNames[0]!]: makeTensor(input.tensor, [1, 3, input.height, input.width]) });
  const probability = detection[models.detector.outputNames[0]!]!.data as Float32Array;
  const turnedQuads = textRegions(probability, input, settings.detection).map((region) => region.quad);
  const canvas = { width: image.width - 2 * PAGE_MARGIN, height: image.height - 2 * PAGE_MARGIN };
  const source = { width: sent.width - 2 * PAGE_MARGIN, height: sent.height - 2 * PAGE_MARGIN };
  const back = (p: Point): Point => {
    const { x, y } = unturnPoint({ x: p.x - PAGE_MARGIN, y: p.y - PAGE_MARGIN }, turn, canvas, source);
    return { x: x + PAGE_MARGIN, y: y + PAGE_MARGIN };
  };
  const quads = turn ? turnedQuads.map((quad) => quad.map(back) as Quad) : turnedQuads;
  return { turn, canvas, probability, input, quads, turnedQuads };
}

/**
 * The detector's side limit for a page turned onto a larger canvas: the limit is the page's, so
 * its text is detected at the same scale however it lies (a photo straightened by 15° onto a
 * canvas 16% larger lost its outpatient number at the page's limit).
 */
function detectionSide(maxSide: number, image: RgbImage, sent: RgbImage): number {
  return Math.round((maxSide * Math.max(image.width, image.height)) / Math.max(sent.width, sent.height));
}
