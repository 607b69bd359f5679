/**
 * Calibrates the PP-OCR recogniser for 8-bit integers (src/engines/ocr/ppocr/prepare/onnx/quantize.ts)
 * and writes src/engines/ocr/ppocr/prepare/recogniser-calibration.ts:
 * 1. the lines of the calibration pages (the de-identification image fixtures, each also as a
 *    photo would show it: tilted, small and blurred, compressed hard; and the RapidOCR photos;
 *    the OCR fixtures and the blood-test photos stay held out for eval:ocr) are cut out as the
 *    pipeline cuts them;
 * 2. each dense convolution's input and output range is taken at the RANGE_PERCENTILE-th
 *    percentile of the values they take on those lines, either side (a few outliers would
 *    otherwise stretch the 256 steps over values that never occur);
 * 3. each convolution is quantized alone, and one that changes more than KEEP_FLOAT_ABOVE of the
 *    characters read on those lines stays in float.
 *
 *   npm run calibrate:ocr
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import '../src/engines/ocr/ppocr/no-telemetry.js';
import ort from 'onnxruntime-node';
import sharp from 'sharp';
import { sha256OfFile } from '../src/platform/models/checksums.js';
import { DETECTION_DEFAULTS } from '../src/engines/ocr/ppocr/detect.js';
import { packagedModelFiles, readAlphabet } from '../src/engines/ocr/ppocr/models.js';
import { decodeCtc } from '../src/engines/ocr/ppocr/ctc.js';
import { withBestPath } from '../src/engines/ocr/ppocr/prepare/onnx/best-path.js';
import { BEST_CLASS, BEST_PROBABILITY, readPreparedManifest, verifiedModelFiles } from '../src/engines/ocr/ppocr/prepared.js';
import { loadConfig } from '../src/config/index.js';
import { OnnxGraph } from '../src/engines/ocr/ppocr/prepare/onnx/graph.js';
import { denseConvolutions, quantizeConvolutions, tensorsToCalibrate, withOutputs, type Calibration } from '../src/engines/ocr/ppocr/prepare/onnx/quantize.js';
import { simplifyModel } from '../src/engines/ocr/ppocr/prepare/onnx/simplify.js';
import { loadModels, readPage } from '../src/engines/ocr/ppocr/pipeline.js';
import { exactInt8DotProducts } from '../src/platform/cpu.js';
import { editDistance } from './lib/error-rates.js';
import { fixturePath } from './lib/paths.js';

const RANGE_PERCENTILE = 0.9999;
const KEEP_FLOAT_ABOVE = Number(process.env.KEEP ?? 0.01);
/** Values sampled from each tensor on each line for its percentiles. */
const SAMPLES_PER_LINE = 4000;
const OUTPUT = new URL('../src/engines/ocr/ppocr/prepare/recogniser-calibration.ts', import.meta.url);

async function calibrationPages(): Promise<Buffer[]> {
  const deid = fixturePath('deid');
  const photos = fixturePath('photos');
  const pages = (await readdir(deid)).filter((file) => /\.(png|jpe?g|webp|tiff)$/.test(file)).map((file) => join(deid, file));
  const asPhotographed = async (path: string) => {
    const page = sharp(path).rotate().flatten({ background: '#ffffff' });
    const { width = 1000 } = await sharp(path).metadata();
    return Promise.all([
      page.clone().rotate(4, { background: '#ffffff' }).png().toBuffer(),
      page.clone().resize(Math.round(width * 0.6)).blur(0.8).png().toBuffer(),
      page.clone().jpeg({ quality: 30 }).toBuffer(),
    ]);
  };
  const rapid = (await readdir(photos)).filter((file) => file.startsWith('rapidocr')).map((file) => join(photos, file));
  return [...(await Promise.all([...pages, ...rapid].map((path) => readFile(path)))), ...(await Promise.all(pages.map(asPhotographed))).flat()];
}

/** The recogniser's inputs (one line each) as the float pipeline reads the pages (the prepared models, npm install's). */
async function lineCrops(pages: Buffer[]): Promise<ort.Tensor[]> {
  const dir = loadConfig().ocr.ppocrDir;
  const models = await loadModels(await verifiedModelFiles(dir, await readPreparedManifest(dir), 'fp32'), 2);
  const crops: ort.Tensor[] = [];
  const recogniser = new Proxy(models.recogniser, {
    get(target, property) {
      if (property !== 'run') return Reflect.get(target, property) as unknown;
      return (feeds: ort.InferenceSession.FeedsType, ...rest: [ort.InferenceSession.FetchesType]) => {
        crops.push(Object.values(feeds)[0]!);
        return target.run(feeds, ...rest);
      };
    },
  });
  const settings = { detection: DETECTION_DEFAULTS, batchSize: 1, threads: 2, device: 'cpu' as const };
  for (const page of pages) await readPage({ ...models, recogniser }, page, settings, {}, new AbortController().signal);
  return crops;
}

/** Deterministic sampling (a fixed LCG), so a rerun writes the same table. */
function sampler(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

async function measureRanges(model: Uint8Array, crops: ort.Tensor[]): Promise<Record<string, [number, number]>> {
  const names = tensorsToCalibrate(model);
  const session = await ort.InferenceSession.create(withOutputs(model, names), { intraOpNumThreads: 2 });
  const samples = new Map(names.map((name) => [name, new Float32Array(crops.length * SAMPLES_PER_LINE)]));
  const pick = sampler(1);
  for (const [i, crop] of crops.entries()) {
    const outputs = await session.run({ [session.inputNames[0]!]: crop }, names);
    for (const name of names) {
      const values = outputs[name]!.data as Float32Array;
      const into = samples.get(name)!;
      for (let s = 0; s < SAMPLES_PER_LINE; s++) into[i * SAMPLES_PER_LINE + s] = values[pick(values.length)]!;
    }
  }
  await session.release();
  return Object.fromEntries(
    names.map((name) => {
      const sorted = samples.get(name)!.sort();
      const at = (p: number) => sorted[Math.round(p * (sorted.length - 1))]!;
      return [name, [at(1 - RANGE_PERCENTILE), at(RANGE_PERCENTILE)]];
    }),
  );
}

/** What greedy CTC reads from each line, character by character. */
async function readings(model: Uint8Array, crops: ort.Tensor[], alphabet: readonly string[]): Promise<string[][]> {
  const session = await ort.InferenceSession.create(withBestPath(model), { intraOpNumThreads: 2 });
  const result: string[][] = [];
  for (const crop of crops) {
    const output = await session.run({ [session.inputNames[0]!]: crop }, [BEST_CLASS, BEST_PROBABILITY]);
    const chars = decodeCtc(output[BEST_CLASS]!.data as BigInt64Array, output[BEST_PROBABILITY]!.data as Float32Array, alphabet);
    result.push(chars.map((c) => c.char));
  }
  await session.release();
  return result;
}

const changedShare = (read: string[][], reference: string[][]) =>
  read.reduce((sum, line, i) => sum + editDistance(reference[i]!, line), 0) / Math.max(1, reference.reduce((sum, line) => sum + line.length, 0));

interface Table {
  modelSha256: string;
  percentile: number;
  keepFloat: string[];
  ranges: Record<string, [number, number]>;
}

/** The table as a TypeScript module, a line per tensor. */
function moduleText(table: Table, source: string): string {
  const ranges = Object.entries(table.ranges).map(([name, range]) => `    ${JSON.stringify(name)}: ${JSON.stringify(range)},`);
  return [
    `/** Made by \`npm run calibrate:ocr\` (scripts/calibrate-ocr.ts) ${source}; do not edit. */`,
    'export const RECOGNISER_CALIBRATION = {',
    `  modelSha256: ${JSON.stringify(table.modelSha256)},`,
    `  percentile: ${table.percentile},`,
    `  keepFloat: ${JSON.stringify(table.keepFloat)},`,
    '  ranges: {',
    ...ranges,
    '  },',
    '} as const;',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const files = packagedModelFiles();
  const model = simplifyModel(await readFile(files.recogniser)).model;
  const pages = await calibrationPages();
  const crops = await lineCrops(pages);
  console.log(`${pages.length} calibration pages, ${crops.length} lines`);
  const ranges = await measureRanges(model, crops);
  const alphabet = await readAlphabet(files.alphabet);
  const reference = await readings(model, crops, alphabet);
  const levels = exactInt8DotProducts() ? 127 : 63;
  const keepFloat: string[] = [];
  for (const conv of denseConvolutions(OnnxGraph.parse(model))) {
    const [input, output] = [conv.inputs[0]!, conv.outputs[0]!];
    const alone: Calibration = { ranges: { [input]: ranges[input]!, [output]: ranges[output]! }, keepFloat: [] };
    const changed = changedShare(await readings(quantizeConvolutions(model, alone, levels), crops, alphabet), reference);
    console.log(`${output.padEnd(24)} ${(100 * changed).toFixed(2)}% of characters changed`);
    if (changed > KEEP_FLOAT_ABOVE) keepFloat.push(output);
  }
  const all = changedShare(await readings(quantizeConvolutions(model, { ranges, keepFloat }, levels), crops, alphabet), reference);
  console.log(`kept in float: ${keepFloat.length}; all the others in int8: ${(100 * all).toFixed(2)}% of characters changed`);
  const table: Table = {
    modelSha256: await sha256OfFile(files.recogniser),
    percentile: RANGE_PERCENTILE,
    keepFloat,
    ranges: Object.fromEntries(Object.entries(ranges).map(([name, [low, high]]) => [name, [Number(low.toPrecision(6)), Number(high.toPrecision(6))] as [number, number]])),
  };
  await writeFile(OUTPUT, moduleText(table, `from ${pages.length} pages, ${crops.length} lines`));
  console.log(`written: ${OUTPUT.pathname}`);
}

await main();
