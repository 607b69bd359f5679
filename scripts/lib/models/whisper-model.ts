/**
 * Writes random-weight whisper.cpp models in the legacy GGML layout that whisper.cpp's
 * `whisper_model_load` reads (src/whisper.cpp of whisper.cpp 1.9.1): the magic, eleven int32
 * hyper-parameters, the mel filter bank, the vocabulary, then every tensor as
 * (n_dims, name length, type, ne[n_dims], name, data) with no padding.
 *
 * The vocabulary is synthetic but shaped like the real one: the 256 single bytes (so any prompt
 * tokenizes and output can hold broken UTF-8, as real byte-level tokens can), Han characters and
 * Latin syllables; whisper.cpp adds the special, language and timestamp tokens itself up to the
 * multilingual 51,865. The output of such a model is noise; what it proves is the real
 * load → mel → encode → decode → JSON path.
 *
 * A sidecar `<file>.json` records the parameters and sha256, so an unchanged file is reused.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { once } from 'node:events';
import { GgmlType } from './gguf.js';
import { newScratch, tensorChunks, type TensorPlan } from './random-weights.js';

const GENERATOR_VERSION = 1;
const GGML_MAGIC = 0x67676d6c;
const FTYPE_F16 = 1;
const N_TEXT_VOCAB = 50_257;
const WEIGHT_STD = 0.02;

export interface WhisperShape {
  nVocab: number;
  nAudioCtx: number;
  nState: number;
  nHead: number;
  nAudioLayer: number;
  nTextCtx: number;
  nTextLayer: number;
  nMels: number;
}

const common = { nVocab: 51_865, nAudioCtx: 1500, nTextCtx: 448, nMels: 80 };

export const WHISPER_SHAPES = {
  tiny: { ...common, nState: 384, nHead: 6, nAudioLayer: 4, nTextLayer: 4 },
  base: { ...common, nState: 512, nHead: 8, nAudioLayer: 6, nTextLayer: 6 },
} satisfies Record<string, WhisperShape>;

export type WhisperShapeName = keyof typeof WHISPER_SHAPES;

export const whisperModelFileName = (shape: WhisperShapeName) => `ggml-${shape}-random.bin`;

const int32s = (...values: number[]) => {
  const bytes = Buffer.alloc(4 * values.length);
  values.forEach((value, i) => bytes.writeInt32LE(value, 4 * i));
  return bytes;
};

/** Triangular filters on the mel scale over the 201 bins of a 400-point FFT at 16 kHz. */
function melFilters(nMels: number): Buffer {
  const nFft = 201;
  const mel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
  const hz = (m: number) => 700 * (10 ** (m / 2595) - 1);
  const edges = Array.from({ length: nMels + 2 }, (_, i) => hz((mel(8000) * i) / (nMels + 1)));
  const data = new Float32Array(nMels * nFft);
  for (let m = 0; m < nMels; m++) {
    const [low, centre, high] = [edges[m]!, edges[m + 1]!, edges[m + 2]!];
    for (let k = 0; k < nFft; k++) {
      const f = (k * 16_000) / 400;
      data[m * nFft + k] = Math.max(0, Math.min((f - low) / (centre - low), (high - f) / (high - centre)));
    }
  }
  return Buffer.concat([int32s(nMels, nFft), Buffer.from(data.buffer)]);
}

/** 256 single bytes, then Han characters, then Latin syllables with and without a leading space. */
function vocabulary(): Buffer {
  const tokens: Buffer[] = [];
  for (let byte = 0; byte < 256; byte++) tokens.push(Buffer.from([byte]));
  for (let code = 0x4e00; tokens.length < 20_000; code++) tokens.push(Buffer.from(String.fromCodePoint(code)));
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  outer: for (const prefix of [' ', '']) {
    for (const a of letters) {
      for (const b of letters) {
        for (const c of letters) {
          if (tokens.length === N_TEXT_VOCAB) break outer;
          tokens.push(Buffer.from(`${prefix}${a}${b}${c}`));
        }
      }
    }
  }
  return Buffer.concat([int32s(tokens.length), ...tokens.flatMap((token) => [int32s(token.length), token])]);
}

/** The tensors whisper.cpp creates for this shape (names from src/whisper-arch.h), ggml dim order. */
function planTensors(shape: WhisperShape): TensorPlan[] {
  const { nState: n, nMels } = shape;
  const weight = (name: string, dims: number[]): TensorPlan => ({ name, dims, type: GgmlType.F16, mean: 0, std: WEIGHT_STD });
  const f32 = (name: string, dims: number[], mean = 0, std = WEIGHT_STD): TensorPlan => ({ name, dims, type: GgmlType.F32, mean, std });
  const norm = (prefix: string): TensorPlan[] => [f32(`${prefix}.weight`, [n], 1, 0), f32(`${prefix}.bias`, [n], 0, 0)];
  const attention = (prefix: string): TensorPlan[] => [
    weight(`${prefix}.query.weight`, [n, n]),
    f32(`${prefix}.query.bias`, [n]),
    weight(`${prefix}.key.weight`, [n, n]),
    weight(`${prefix}.value.weight`, [n, n]),
    f32(`${prefix}.value.bias`, [n]),
    weight(`${prefix}.out.weight`, [n, n]),
    f32(`${prefix}.out.bias`, [n]),
  ];
  const block = (prefix: string, cross: boolean): TensorPlan[] => [
    ...norm(`${prefix}.mlp_ln`),
    weight(`${prefix}.mlp.0.weight`, [n, 4 * n]),
    f32(`${prefix}.mlp.0.bias`, [4 * n]),
    weight(`${prefix}.mlp.2.weight`, [4 * n, n]),
    f32(`${prefix}.mlp.2.bias`, [n]),
    ...norm(`${prefix}.attn_ln`),
    ...attention(`${prefix}.attn`),
    ...(cross ? [...norm(`${prefix}.cross_attn_ln`), ...attention(`${prefix}.cross_attn`)] : []),
  ];
  const range = (count: number) => Array.from({ length: count }, (_, i) => i);
  return [
    f32('encoder.positional_embedding', [n, shape.nAudioCtx]),
    weight('encoder.conv1.weight', [3, nMels, n]),
    f32('encoder.conv1.bias', [1, n]),
    weight('encoder.conv2.weight', [3, n, n]),
    f32('encoder.conv2.bias', [1, n]),
    ...norm('encoder.ln_post'),
    ...range(shape.nAudioLayer).flatMap((i) => block(`encoder.blocks.${i}`, false)),
    f32('decoder.positional_embedding', [n, shape.nTextCtx]),
    weight('decoder.token_embedding.weight', [n, shape.nVocab]),
    ...norm('decoder.ln'),
    ...range(shape.nTextLayer).flatMap((i) => block(`decoder.blocks.${i}`, true)),
  ];
}

function header(shape: WhisperShape): Buffer {
  const { nVocab, nAudioCtx, nState, nHead, nAudioLayer, nTextCtx, nTextLayer, nMels } = shape;
  const hparams = int32s(nVocab, nAudioCtx, nState, nHead, nAudioLayer, nTextCtx, nState, nHead, nTextLayer, nMels, FTYPE_F16);
  const magic = Buffer.alloc(4);
  magic.writeUInt32LE(GGML_MAGIC);
  return Buffer.concat([magic, hparams, melFilters(nMels), vocabulary()]);
}

const ggmlTypeCode = (type: GgmlType) => (type === GgmlType.F16 ? 1 : 0);

function tensorHeader(plan: TensorPlan): Buffer {
  const name = Buffer.from(plan.name);
  return Buffer.concat([int32s(plan.dims.length, name.length, ggmlTypeCode(plan.type), ...plan.dims), name]);
}

async function* fileChunks(shape: WhisperShape, seed: number): AsyncGenerator<Uint8Array> {
  yield header(shape);
  const scratch = newScratch();
  for (const plan of planTensors(shape)) {
    yield tensorHeader(plan);
    yield* tensorChunks(plan, seed, scratch);
  }
}

export interface WhisperTestModel {
  path: string;
  sha256: string;
  bytes: number;
  created: boolean;
}

interface Sidecar {
  description: string;
  sha256: string;
  bytes: number;
}

async function existing(path: string, description: string): Promise<WhisperTestModel | undefined> {
  try {
    const sidecar = JSON.parse(await readFile(`${path}.json`, 'utf8')) as Sidecar;
    const info = await stat(path);
    if (sidecar.description !== description || sidecar.bytes !== info.size) return undefined;
    return { path, sha256: sidecar.sha256, bytes: info.size, created: false };
  } catch {
    return undefined;
  }
}

/** Makes sure the random-weight whisper model of `shape` exists in `modelsDir`; writes it only when missing or different. */
export async function ensureWhisperTestModel(options: {
  modelsDir: string;
  shape?: WhisperShapeName;
  seed?: number;
}): Promise<WhisperTestModel> {
  const shapeName = options.shape ?? 'tiny';
  const shape = WHISPER_SHAPES[shapeName];
  const seed = options.seed ?? 42;
  const path = resolve(join(options.modelsDir, whisperModelFileName(shapeName)));
  // The sidecar's description decides whether a model on disk is reused: it names the generator
  // where it first lived, so the models already generated stay valid.
  const description = `Random weights, not a trained model: mdt-ai-gateway test/support/models/whisper-model.ts ${JSON.stringify({ generator: GENERATOR_VERSION, shape: shapeName, seed })}`;
  const found = await existing(path, description);
  if (found) return found;

  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.partial-${process.pid}`;
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    const out = createWriteStream(partial);
    for await (const chunk of fileChunks(shape, seed)) {
      hash.update(chunk);
      bytes += chunk.length;
      // A copy: the chunk's buffer is reused for the next one while the stream may still hold it.
      if (!out.write(Buffer.from(chunk))) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    await rename(partial, path);
  } finally {
    await rm(partial, { force: true });
  }
  const sha256 = hash.digest('hex');
  await writeFile(`${path}.json`, `${JSON.stringify({ description, sha256, bytes } satisfies Sidecar, null, 2)}\n`);
  return { path, sha256, bytes, created: true };
}

/** Whether `path` is a model this script generated (its sidecar says so): its words are noise. */
export async function isRandomWhisperModel(path: string): Promise<boolean> {
  try {
    const sidecar = JSON.parse(await readFile(`${path}.json`, 'utf8')) as Partial<Sidecar>;
    return typeof sidecar.description === 'string' && sidecar.description.startsWith('Random weights');
  } catch {
    return false;
  }
}
