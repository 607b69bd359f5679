/**
 * One page through PP-OCR: the page straightened when its lines are skewed (a photo taken at an
 * angle), detection (enlarged, when its print is too small for the detector at the side limit:
 * at once where the page's pixels show how small, else again once it has been detected), the
 * line direction classifier, batched recognition, the page's quarter
 * turn, and the OcrPage. The detector finds lines well only when they lie near level or plumb
 * (at 30° it cut a form's rows into fragments and missed the name's line), so a skewed page is
 * turned straight once (see orientation.ts) and read as it then lies. A page photographed at a
 * slant (its rows converging, its far rows shorter) is then detected once more in its flat view
 * (see perspective.ts), the audit's reading too, and its lines are cut flat from the page as
 * sent. The page's whole turn, over the full circle, comes from three votes: the skew from the
 * detector's map turns its lines level (or plumb lines level), the direction classifier's votes
 * on the straightened lines say whether it then stands upside down (its lines are read from their
 * other ends), and the direction most of the read text runs in settles the quarter turn (text
 * the detector saw plumb). A page read at a turn already known (the de-identification audit) is
 * turned by it and read upright.
 */
import './no-telemetry.js';
import ort from 'onnxruntime-node';
import type { Box, OcrPage, PageLie, PagePerspective } from '../../types.js';
import { closerLines, closerSide, detectionInput, giveBackTensor, linesLost, plannedSide, textRegions, type DetectionInput, type DetectionSettings } from './detect.js';
import { cropRgb, decodeRgb, type RgbImage } from './image.js';
import { homography, project, warp } from '../homography.js';
import { estimatePerspective, flatView, turnedPerspective } from '../perspective.js';
import { readAlphabet, type PpOcrModelFiles } from './models.js';
import { printLineHeight } from './print-height.js';
import { pageRotation, straighteningTurn, textOutline, textRegion } from './orientation.js';
import { boundingBox, normalDegrees, quadOf, turnedSize, turnPoint, unturnPoint, type Point, type Quad } from '../plane.js';
import { assemblePage } from './page.js';
import type { OcrDevice } from './prepared.js';
import { cutAlong, mostlyUpsideDown, readLines, turnedHalf, type LineCut, type MakeTensor } from './recognize.js';

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

/** How a page is read: as it is known to lie (from an earlier reading) or found; `asItLies`: never in a flat view. */
export interface ReadHow {
  lie?: PageLie;
  asItLies?: boolean;
}

/**
 * Reads one page image (any format sharp reads). Stops with the signal's reason before the next
 * model call once `signal` aborts.
 */
export async function readPage(models: PpOcrModels, bytes: Uint8Array, settings: PipelineSettings, { lie, asItLies }: ReadHow, signal: AbortSignal): Promise<OcrPage> {
  const sent = await decodeRgb(bytes, PAGE_MARGIN);
  const source = { width: sent.width - 2 * PAGE_MARGIN, height: sent.height - 2 * PAGE_MARGIN };
  const linesAt = (turn: number, text?: readonly Point[]) => detectLines(models, bytes, sent, detectionTurn(turn), settings, signal, text);
  let turn = lie?.rotation ?? 0;
  let lines = await linesAt(turn);
  if (lie === undefined) {
    turn = straighteningTurn(lines.probability, lines.input, settings.detection.threshold);
    if (detectionTurn(turn) !== lines.turn) lines = await linesAt(turn, lines.text());
  }
  if (!asItLies) lines = (await flatLines(models, sent, lines, turn, lie, settings, signal)) ?? lines;
  // A page read as it is known to lie is turned upright: its lines need no classifier.
  const flipped = lie === undefined && (await mostlyUpsideDown(models.classifier, sent, lines.cuts, settings.batchSize, makeTensor, signal));
  const asRead = flipped ? lines.cuts.map((cut) => ({ ...cut, quad: turnedHalf(cut.quad) })) : lines.cuts;
  const readings = await readLines(models.recogniser, sent, asRead, models.alphabet, settings.batchSize, makeTensor, signal);
  const straight = turnedSize(source, turn);
  const turnedBy = (quad: Quad) => quad.map((p) => turnPoint(p, turn, source, straight)) as Quad;
  const quarter = lie === undefined ? pageRotation(readings.map((reading) => ({ quad: turnedBy(reading.quad), chars: reading.chars.length }))) : 0;
  const perspective = lines.perspective && turnedPerspective(lines.perspective, quarter);
  const upright = turnedSize(source, turn + quarter);
  const page = assemblePage(readings, { source, margin: PAGE_MARGIN, rotation: turn + quarter, upright, ...(perspective ? { perspective } : {}) });
  return { ...page, detectionScale: lines.scale, ...(perspective ? { perspective } : {}) };
}

/**
 * Skews under this are detected as the page lies, turned by quarter turns only (exact, no
 * resampling), and the lines' points turned the rest of the way: the detector reads a skew this
 * small well, and faint small print resampled by a turn it can miss (a photo turned by 6° in
 * sharp, then straightened, lost its outpatient number's line). Past it the page is detected
 * turned straight, around its text (see detectLines): at 15° the detector cut a form's rows into
 * pieces that overlap (33–38 pairs of them on a photo; 7–14 straightened), and on the canvas a
 * turned photo lies on it saw the form's text at 0.63 of its size (0.74–0.82 around its text),
 * where a faint name lost its last character.
 */
const REDETECT_SKEW = 10;

/** The turn a page is detected at, for a page that stands `turn` degrees from straight and upright. */
function detectionTurn(turn: number): number {
  const quarter = Math.round(turn / 90) * 90;
  return Math.abs(turn - quarter) < REDETECT_SKEW ? normalDegrees(quarter) : turn;
}

/** The page's text lines, detected in the page turned `turn` degrees (or in its flat view), cut from the page as sent. */
interface DetectedLines {
  turn: number;
  /** The detector's map of text pixels over the turned page. */
  probability: Float32Array;
  input: DetectionInput;
  /** Each line in the page as sent (with its margin), where it is cut from. */
  cuts: LineCut[];
  /** Where the map shows text, in the page as sent (see textOutline): worked out only for a page that must be detected again turned. */
  text: () => Point[];
  /** Detector pixels per page pixel (of its nearest text, in a flat view), at most 1. */
  scale: number;
  /** The perspective of the turned page, when the lines were detected in its flat view. */
  perspective?: PagePerspective;
}

/** Page pixels per detector pixel, as DetectedLines.scale. */
const scaleOf = (input: DetectionInput) => Math.min(1, 1 / Math.max(input.scaleX, input.scaleY));

/**
 * The lines of the page turned `turn` degrees, as the detector sees them there, carried back onto
 * the page as sent: a skewed page is detected straight, and its lines are still cut from the
 * pixels as sent (a line resampled twice, turned and then cut, lost two digits of a number).
 * Where the page's `text` was seen already (its outline as sent), only the part of the turned
 * page around it is detected, the side limit spent on it (see textRegion); the whole turned page
 * is, as before, when lines found there run into the part's cut edges (text the first look
 * missed: far small print of a page turned 45° and tilted).
 */
async function detectLines(
  models: PpOcrModels,
  bytes: Uint8Array,
  sent: RgbImage,
  turn: number,
  settings: PipelineSettings,
  signal: AbortSignal,
  text?: readonly Point[],
): Promise<DetectedLines> {
  const turned = turn ? await decodeRgb(bytes, PAGE_MARGIN, turn) : sent;
  const canvas = { width: turned.width - 2 * PAGE_MARGIN, height: turned.height - 2 * PAGE_MARGIN };
  const source = { width: sent.width - 2 * PAGE_MARGIN, height: sent.height - 2 * PAGE_MARGIN };
  const detectIn = async (region: Box | undefined) => {
    if (region) return { region, ...(await detectLegibly(models, cropRgb(turned, region), settings.detection.maxSide, settings, signal)) };
    const side = detectionSide(settings.detection.maxSide, turned, sent);
    const planned = plannedSide(printLineHeight(turned), Math.max(turned.width, turned.height), side);
    return { region, ...(await (planned ? detectAt(models, turned, planned, settings, signal) : detectLegibly(models, turned, side, settings, signal))) };
  };
  const region = text && textRegion(text, turn, { source, canvas, margin: PAGE_MARGIN });
  let seen = await detectIn(region);
  if (region && seen.quads.some((quad) => reachesCut(quad, region, turned))) seen = await detectIn(undefined);
  const { probability, input, quads: found } = seen;
  const [dx, dy] = seen.region ? [seen.region.x0, seen.region.y0] : [0, 0];
  const back = (p: Point): Point => {
    const { x, y } = unturnPoint({ x: p.x + dx - PAGE_MARGIN, y: p.y + dy - PAGE_MARGIN }, turn, canvas, source);
    return { x: x + PAGE_MARGIN, y: y + PAGE_MARGIN };
  };
  const moved = turn !== 0 || seen.region !== undefined;
  const outlineAsSent = () => {
    const outline = textOutline(probability, input, settings.detection.threshold);
    return moved ? outline.map(back) : outline;
  };
  return {
    turn,
    probability,
    input,
    cuts: (moved ? found.map((quad) => quad.map(back) as Quad) : found).map(cutAlong),
    text: outlineAsSent,
    scale: scaleOf(input),
  };
}

/** Whether a line found in `region` of `image` comes within the page's margin of an edge where the region cuts the image. */
function reachesCut(quad: Quad, region: Box, image: RgbImage): boolean {
  const width = region.x1 - region.x0;
  const height = region.y1 - region.y0;
  return quad.some(
    ({ x, y }) =>
      (region.x0 > 0 && x < PAGE_MARGIN) ||
      (region.y0 > 0 && y < PAGE_MARGIN) ||
      (region.x1 < image.width && x > width - PAGE_MARGIN) ||
      (region.y1 < image.height && y > height - PAGE_MARGIN),
  );
}

/** What the detector found in an image scaled to one side. */
interface Detection {
  input: DetectionInput;
  probability: Float32Array;
  quads: Quad[];
}

/**
 * The image's text detected at `side`, and once more enlarged when its lines come out thinner
 * than the detector keeps whole there (see closerSide): small print on a full page scaled down,
 * where its pixels could not tell how small (see print-height.ts; a whole page whose print they
 * measure is detected once, at the side planned from it). The enlarged detection stands only
 * when it finds again every line the first found but lone glyphs, which are kept from the first
 * (see closerLines); text found and then lost would let an unreadable page pass as blank.
 */
async function detectLegibly(models: PpOcrModels, image: RgbImage, side: number, settings: PipelineSettings, signal: AbortSignal): Promise<Detection> {
  const first = await detectAt(models, image, side, settings, signal);
  const closer = closerSide(first.quads, first.input, Math.max(image.width, image.height));
  if (closer === undefined) return first;
  const enlarged = await detectAt(models, image, closer, settings, signal);
  const quads = closerLines(first.quads, enlarged.quads);
  return quads ? { ...enlarged, quads } : first;
}

async function detectAt(models: PpOcrModels, image: RgbImage, side: number, settings: PipelineSettings, signal: AbortSignal): Promise<Detection> {
  const input = await detectionInput(image, side);
  return { input, ...(await detect(models, input, settings, signal)) };
}

async function detect(models: PpOcrModels, input: DetectionInput, settings: PipelineSettings, signal: AbortSignal): Promise<{ probability: Float32Array; quads: Quad[] }> {
  signal.throwIfAborted();
  const detection = await models.detector
    .run({ [models.detector.inputNames[0]!]: makeTensor(input.tensor, [1, 3, input.height, input.width]) })
    .finally(() => giveBackTensor(input));
  const probability = detection[models.detector.outputNames[0]!]!.data as Float32Array;
  return { probability, quads: textRegions(probability, input, settings.detection).map((region) => region.quad) };
}

/** A flat view is drawn at most this many times the detector's side limit long (the detector's time grows with its area). */
const FLAT_VIEW_SIDE = 1.5;

/**
 * The lines of a page photographed at a slant, detected again in its flat view (see
 * perspective.ts) and carried back onto the page as sent, each with its proportions on the paper,
 * and every line detected on the page as it lies that the flat view does not find again (its
 * detector, at another scale, can miss a faint line found at the first); undefined for a page
 * whose lines (`lines`, of the page turned `turn` degrees) show no perspective that matters. A
 * page whose lie is `known` is seen in the flat view of its known perspective, or in none.
 */
async function flatLines(
  models: PpOcrModels,
  sent: RgbImage,
  lines: DetectedLines,
  turn: number,
  known: PageLie | undefined,
  settings: PipelineSettings,
  signal: AbortSignal,
): Promise<DetectedLines | undefined> {
  const source = { width: sent.width - 2 * PAGE_MARGIN, height: sent.height - 2 * PAGE_MARGIN };
  const straight = turnedSize(source, turn);
  const toStraight = (p: Point) => turnPoint({ x: p.x - PAGE_MARGIN, y: p.y - PAGE_MARGIN }, turn, source, straight);
  const toSent = (p: Point): Point => {
    const { x, y } = unturnPoint(p, turn, straight, source);
    return { x: x + PAGE_MARGIN, y: y + PAGE_MARGIN };
  };
  const quads = lines.cuts.map((cut) => cut.quad.map(toStraight) as Quad);
  const perspective = known ? known.perspective : estimatePerspective(quads, straight);
  if (!perspective) return undefined;
  const text = boundingBox(quads.flat());
  const around = quadOf({ x0: Math.max(0, text.x0), y0: Math.max(0, text.y0), x1: Math.min(straight.width, text.x1), y1: Math.min(straight.height, text.y1) });
  const view = flatView(perspective, straight, around, Math.max(source.width, source.height), { scale: lines.scale, maxSide: FLAT_VIEW_SIDE * settings.detection.maxSide });
  if (!view) return undefined;
  // From the flat view (with its margin) to the page as sent (with its), through the corners of the text.
  const fromFlat = homography(
    around.map((p) => {
      const { x, y } = project(view.toFlat, p);
      return { x: x + PAGE_MARGIN, y: y + PAGE_MARGIN };
    }) as Quad,
    around.map(toSent) as Quad,
  );
  const image = warp(sent, 3, fromFlat, view.size.width + 2 * PAGE_MARGIN, view.size.height + 2 * PAGE_MARGIN);
  const { input, probability, quads: flatQuads } = await detectAt(models, image, Math.max(image.width, image.height), settings, signal);
  const cuts = flatQuads.map((quad) => ({ quad: quad.map((p) => project(fromFlat, p)) as Quad, aspect: cutAlong(quad).aspect }));
  const missed = new Set(linesLost(lines.cuts.map((cut) => cut.quad), cuts.map((cut) => cut.quad)));
  return { turn, probability, input, cuts: [...cuts, ...lines.cuts.filter((cut) => missed.has(cut.quad))], text: lines.text, scale: view.scale, perspective };
}

/**
 * The detector's side limit for a page turned onto a larger canvas: the limit is the page's, so
 * its text is detected at the same scale however it lies (a photo straightened by 15° onto a
 * canvas 16% larger lost its outpatient number at the page's limit).
 */
function detectionSide(maxSide: number, image: RgbImage, sent: RgbImage): number {
  return Math.round((maxSide * Math.max(image.width, image.height)) / Math.max(sent.width, sent.height));
}
