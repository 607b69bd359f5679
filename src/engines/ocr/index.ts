import type { Logger } from '../../platform/logger.js';
import type { ExpectedHash } from '../../platform/models/trust.js';
import type { OcrEngine } from '../types.js';
import { createTesseractEngine, TesseractOcrEngine, type OcrSettings } from './tesseract/engine.js';
import { DETECTION_DEFAULTS } from './ppocr/detect.js';
import { PpOcrEngine, type PpOcrSettings } from './ppocr/engine.js';
import { OcrReaders } from './readers.js';

export { TesseractOcrEngine, createTesseractEngine } from './tesseract/engine.js';
export type { OcrSettings } from './tesseract/engine.js';
export { PpOcrEngine } from './ppocr/engine.js';
export { packagedModelFiles } from './ppocr/models.js';
export { prepareOcrModels } from './ppocr/prepare/prepare.js';
export { boxOfChars, joinLine, removeCjkSpaces } from './line-text.js';
export { boundingBox, distance, insideQuad, isQuarterTurn, pointInQuad, quadOf, turnPoint, undoDeskew, unturnPoint, type Point, type Quad, type QuarterTurn, type Size } from './plane.js';
export { homography, project, type Homography } from './homography.js';

/**
 * The OCR engine `settings.engine` names, with tesseract.js as its independent second reader (or
 * alone, when it is the one named); why not, when tesseract's traineddata is missing.
 */
export function createOcrEngine(
  settings: OcrSettings,
  logger?: Logger,
  expectedHash?: (path: string) => ExpectedHash | undefined,
): { engine: OcrEngine } | { reason: string } {
  const tesseract = createTesseractEngine(settings, logger, expectedHash);
  if (!(tesseract instanceof TesseractOcrEngine)) return tesseract;
  if (settings.engine !== 'ppocr') return { engine: new OcrReaders(tesseract, undefined) };
  const ppocr = new PpOcrEngine(ppOcrSettings(settings), settings.ppocrDir, logger);
  return { engine: new OcrReaders(ppocr, tesseract) };
}

/** The PP-OCR engine's settings from the operator's OCR settings. */
export function ppOcrSettings(settings: OcrSettings): PpOcrSettings {
  return {
    workers: settings.workers,
    threads: settings.threads,
    device: settings.device,
    precision: settings.precision,
    detection: { ...DETECTION_DEFAULTS, maxSide: settings.detectionMaxSide },
    batchSize: settings.batch,
    startTimeoutMs: settings.startTimeoutMs,
  };
}
