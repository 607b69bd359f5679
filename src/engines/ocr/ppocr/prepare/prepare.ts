/**
 * Prepares PP-OCR's model files for the engine, once, at install or release time: every model
 * rewritten exactly into fewer operations (onnx/simplify.ts), the recogniser made to answer its
 * best path (onnx/best-path.ts) and, when it is the calibrated one, also quantized to 8-bit
 * integers for both kinds of CPU (onnx/quantize.ts). The files and prepared.json (each file's
 * sha256) are written into a fresh folder that replaces the old one whole, so a reader never
 * sees half a preparation. A file that cannot be rewritten fails the preparation by name. It
 * takes about a second and gives the same bytes from the same files, so it is simply done again
 * whenever the gateway is built.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { sha256OfFile } from '../../../../platform/models/checksums.js';
import type { PpOcrModelFiles } from '../models.js';
import { PREPARED_MANIFEST, type PreparedFile, type PreparedManifest, type RecogniserVariant } from '../prepared.js';
import { withBestPath } from './onnx/best-path.js';
import { quantizeConvolutions, type Calibration, type WeightLevels } from './onnx/quantize.js';
import { simplifyModel } from './onnx/simplify.js';
import { RECOGNISER_CALIBRATION } from './recogniser-calibration.js';

const INT8_VARIANTS: ReadonlyArray<[RecogniserVariant, WeightLevels]> = [
  ['int8-127', 127],
  ['int8-63', 63],
];

export async function prepareOcrModels(source: PpOcrModelFiles, outDir: string): Promise<PreparedManifest> {
  const sourceHashes = await hashesOf(source);
  const work = join(dirname(outDir), `.${basename(outDir)}.${process.pid}.tmp`);
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  try {
    const write = async (file: string, bytes: Uint8Array): Promise<PreparedFile> => {
      await writeFile(join(work, file), bytes);
      return { file, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.byteLength };
    };
    const recogniser = await simplified(source.recogniser);
    const calibration = calibrationFor(sourceHashes.recogniser);
    const int8 = calibration
      ? Object.fromEntries(await Promise.all(INT8_VARIANTS.map(async ([variant, levels]) => [variant, await write(`rec-${variant}.onnx`, withBestPath(quantizeConvolutions(recogniser, calibration, levels)))])))
      : {};
    await copyFile(source.alphabet, join(work, 'keys.txt'));
    const manifest: PreparedManifest = {
      schema: 1,
      model: modelLabel(sourceHashes),
      source: sourceHashes,
      files: {
        detector: await write('det.onnx', await simplified(source.detector)),
        classifier: await write('cls.onnx', await simplified(source.classifier)),
        alphabet: { file: 'keys.txt', sha256: sourceHashes.alphabet, bytes: (await stat(source.alphabet)).size },
        recogniser: { fp32: await write('rec-fp32.onnx', withBestPath(recogniser)), ...int8 },
      },
    };
    await writeFile(join(work, PREPARED_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    await rm(outDir, { recursive: true, force: true });
    await rename(work, outDir);
    return manifest;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * The calibration of the recogniser whose file has this sha256, when it was calibrated: only the
 * packaged PP-OCRv4 recogniser, whose activation ranges were measured on real lines
 * (recogniser-calibration.ts, made by `npm run calibrate:ocr`), is prepared in 8-bit integers; a
 * recogniser file of other content is prepared in float only.
 */
export function calibrationFor(recogniserSha256: string): Calibration | undefined {
  return recogniserSha256 === RECOGNISER_CALIBRATION.modelSha256 ? RECOGNISER_CALIBRATION : undefined;
}

async function simplified(path: string): Promise<Uint8Array> {
  const bytes = await readFile(path);
  try {
    return simplifyModel(bytes).model;
  } catch (error) {
    throw new Error(`${path} could not be prepared (is it a PP-OCR ONNX model?): ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function hashesOf(files: PpOcrModelFiles): Promise<PreparedManifest['source']> {
  const [detector, classifier, recogniser, alphabet] = await Promise.all([files.detector, files.classifier, files.recogniser, files.alphabet].map(sha256OfFile));
  return { detector: detector!, classifier: classifier!, recogniser: recogniser!, alphabet: alphabet! };
}

/** `PP-OCRv4@<first 12 hex of the sha256 of the four source files' hashes>`: changes when any file does. */
function modelLabel(hashes: PreparedManifest['source']): string {
  const joined = [hashes.detector, hashes.classifier, hashes.recogniser, hashes.alphabet].join('\n');
  return `PP-OCRv4@${createHash('sha256').update(joined).digest('hex').slice(0, 12)}`;
}
