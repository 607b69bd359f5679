/**
 * The PP-OCR models as the engine runs them, prepared once when the gateway is installed or
 * released (prepare/), never at start: each file is written with its sha256 into prepared.json
 * beside it, and the engine loads a file only when its bytes still have that hash.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { exactInt8DotProducts } from '../../../platform/cpu.js';
import { sha256OfFile } from '../../../platform/models/checksums.js';
import type { PpOcrModelFiles } from './models.js';

export const PREPARED_MANIFEST = 'prepared.json';

/** The prepared recogniser's outputs: per time step, the most probable class and its probability. */
export const BEST_CLASS = 'ctc_best_class';
export const BEST_PROBABILITY = 'ctc_best_probability';

/**
 * The recogniser in float, or in 8-bit integers with weights on 127 levels (CPUs whose int8
 * products never saturate) or 63 (x86 without VNNI, whose multiply-add saturates pair sums).
 */
export type RecogniserVariant = 'fp32' | 'int8-127' | 'int8-63';

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const preparedFile = z.object({ file: z.string().regex(/^[\w.-]+$/), sha256, bytes: z.number().int().positive() });
export type PreparedFile = z.infer<typeof preparedFile>;

export const preparedManifest = z.object({
  schema: z.literal(1),
  /** `PP-OCRv4@<12 hex>`, from the source files' hashes: what status and logs call the models. */
  model: z.string(),
  /** The sha256 of each file the models were prepared from. */
  source: z.object({ detector: sha256, classifier: sha256, recogniser: sha256, alphabet: sha256 }),
  files: z.object({
    detector: preparedFile,
    classifier: preparedFile,
    alphabet: preparedFile,
    recogniser: z.object({ fp32: preparedFile, 'int8-127': preparedFile.optional(), 'int8-63': preparedFile.optional() }),
  }),
});
export type PreparedManifest = z.infer<typeof preparedManifest>;

/** Why the prepared models cannot be used: none there (`missing`), or not the bytes prepared (`altered`). */
export class PreparedModelsProblem extends Error {
  constructor(
    readonly kind: 'missing' | 'altered',
    message: string,
  ) {
    super(message);
    this.name = 'PreparedModelsProblem';
  }
}

export async function readPreparedManifest(dir: string): Promise<PreparedManifest> {
  const path = join(dir, PREPARED_MANIFEST);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new PreparedModelsProblem('missing', `no prepared PP-OCR models in ${dir} (no ${PREPARED_MANIFEST}): run \`mdt-gateway models prepare-ocr\` (in a checkout, npm install does)`);
  }
  const parsed = preparedManifest.safeParse(parsedJson(text));
  if (!parsed.success) throw new PreparedModelsProblem('altered', `${path} is not a prepared-models manifest: prepare the models again (mdt-gateway models prepare-ocr)`);
  return parsed.data;
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A prepared file's path, once its bytes are checked against the hash it was prepared with. */
export async function verifiedPath(dir: string, prepared: PreparedFile): Promise<string> {
  const path = join(dir, prepared.file);
  const actual = await sha256OfFile(path).catch(() => undefined);
  if (actual === undefined) throw new PreparedModelsProblem('missing', `${path} is missing: prepare the models again (mdt-gateway models prepare-ocr)`);
  if (actual !== prepared.sha256) {
    throw new PreparedModelsProblem('altered', `${path} has sha256 ${actual.slice(0, 12)}…, not the ${prepared.sha256.slice(0, 12)}… it was prepared with: prepare the models again`);
  }
  return path;
}

/** The files to load, each verified, with the recogniser `variant`. */
export async function verifiedModelFiles(dir: string, manifest: PreparedManifest, variant: RecogniserVariant): Promise<PpOcrModelFiles> {
  const recogniser = manifest.files.recogniser[variant];
  if (!recogniser) throw new PreparedModelsProblem('missing', `the prepared PP-OCR models have no ${variant} recogniser`);
  const [detector, classifier, recogniserPath, alphabet] = await Promise.all(
    [manifest.files.detector, manifest.files.classifier, recogniser, manifest.files.alphabet].map((file) => verifiedPath(dir, file)),
  );
  return { detector: detector!, classifier: classifier!, recogniser: recogniserPath!, alphabet: alphabet! };
}

/** What the recogniser runs in (OCR_PRECISION), and where the models run (OCR_DEVICE). */
export type OcrPrecision = 'int8' | 'fp32';
export type OcrDevice = 'cpu' | 'cuda';

/** The recogniser asked for: in 8-bit integers when asked, on the CPU, on the weight levels this CPU multiplies exactly; else in float. */
export function wantedRecogniser(precision: OcrPrecision, device: OcrDevice): RecogniserVariant {
  if (precision !== 'int8' || device !== 'cpu') return 'fp32';
  return exactInt8DotProducts() ? 'int8-127' : 'int8-63';
}

/** The recogniser to run: the one asked for when it was prepared (only the calibrated recogniser has int8 forms), else in float. */
export function recogniserFor(manifest: PreparedManifest, precision: OcrPrecision, device: OcrDevice): RecogniserVariant {
  const wanted = wantedRecogniser(precision, device);
  return manifest.files.recogniser[wanted] ? wanted : 'fp32';
}
