/**
 * Which recogniser is prepared in 8-bit integers: the packaged PP-OCRv4 recogniser, whose
 * activation ranges were measured on real lines (recogniser-calibration.ts, made by
 * `npm run calibrate:ocr`). A recogniser file of other content has no calibration and is
 * prepared in float only.
 */
import type { Calibration } from './onnx/quantize.js';
import { RECOGNISER_CALIBRATION } from './recogniser-calibration.js';

/** The calibration of the recogniser whose file has this sha256, when it was calibrated. */
export function calibrationFor(recogniserSha256: string): Calibration | undefined {
  return recogniserSha256 === RECOGNISER_CALIBRATION.modelSha256 ? RECOGNISER_CALIBRATION : undefined;
}
