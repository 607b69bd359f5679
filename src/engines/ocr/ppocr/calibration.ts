/**
 * Which recogniser runs in 8-bit integers: the packaged PP-OCRv4 recogniser, whose activation
 * ranges were measured on real lines (recogniser-calibration.ts, made by `npm run calibrate:ocr`).
 * A recogniser file of other content has no calibration and runs in float.
 */
import { exactInt8DotProducts } from '../../../platform/cpu.js';
import type { Calibration, WeightLevels } from './onnx/quantize.js';
import { RECOGNISER_CALIBRATION } from './recogniser-calibration.js';

export type OcrPrecision = 'int8' | 'fp32';

/** How the recogniser is quantized at load. */
export interface Quantization {
  calibration: Calibration;
  weightLevels: WeightLevels;
}

/** The quantization for the recogniser whose file has this sha256, when it was calibrated. */
export function quantizationFor(recogniserSha256: string): Quantization | undefined {
  if (recogniserSha256 !== RECOGNISER_CALIBRATION.modelSha256) return undefined;
  return { calibration: RECOGNISER_CALIBRATION, weightLevels: exactInt8DotProducts() ? 127 : 63 };
}
