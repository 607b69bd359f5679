/**
 * npm run models:test: writes the random-weight test models (a qwen2 GGUF with the real Qwen2.5
 * tokenizer, and a whisper.cpp model) into MODELS_DIR, with no download. The generators are
 * test support: test/support/models/.
 */
import { basename, dirname, isAbsolute, relative } from 'node:path';
import { parseArgs } from 'node:util';
import {
  DEFAULT_SEED,
  SHAPES,
  WEIGHT_TYPES,
  ensureTestModel,
  type ShapeName,
  type WeightType,
} from '../test/support/models/make-test-model.js';
import { WHISPER_SHAPES, ensureWhisperTestModel, type WhisperShapeName } from '../test/support/models/whisper-model.js';


const USAGE = `Usage: npm run models:test -- [options]

Writes a random-weight qwen2 GGUF model with the real Qwen2.5 tokenizer, and a random-weight
whisper.cpp model (ggml-<whisper shape>-random.bin), with no download.

Options:
  --shape <name>   ${Object.keys(SHAPES).join(' | ')} (default: tiny)
  --type <type>    ${Object.keys(WEIGHT_TYPES).join(' | ')} weight matrices (default: q8_0)
  --seed <n>       PRNG seed, 32-bit unsigned (default: ${DEFAULT_SEED})
  --out <path>     output file (default: $MODELS_DIR/<name>.gguf)
  --whisper <name> ${Object.keys(WHISPER_SHAPES).join(' | ')}: the whisper model's dimensions (default: tiny)
  --force          rewrite even if an identical file exists
  --help           show this help

Environment:
  MODELS_DIR       models directory (default: ./models); the tokenizer extracted from
                   node-llama-cpp's llama.cpp bundle is cached in $MODELS_DIR/.cache/
`;

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`;
}

/** `./relative/path` when under the working directory, else absolute. */
function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  if (rel === '') return '.';
  return rel.startsWith('..') || isAbsolute(rel) ? path : `./${rel}`;
}

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        shape: { type: 'string' },
        type: { type: 'string' },
        seed: { type: 'string' },
        out: { type: 'string' },
        whisper: { type: 'string' },
        force: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: false,
    }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const shape = (args.shape ?? 'tiny') as ShapeName;
  const type = (args.type ?? 'q8_0').toLowerCase() as WeightType;
  const whisperShape = (args.whisper ?? 'tiny') as WhisperShapeName;
  if (!(shape in SHAPES) || !(type in WEIGHT_TYPES) || !(whisperShape in WHISPER_SHAPES)) {
    console.error(`unknown --shape, --type or --whisper\n\n${USAGE}`);
    return 2;
  }
  const seed = args.seed === undefined ? DEFAULT_SEED : Number(args.seed);
  const modelsDir = process.env.MODELS_DIR || './models';

  const started = performance.now();
  const model = await ensureTestModel({ modelsDir, shape, type, seed, outPath: args.out, force: args.force });
  const seconds = ((performance.now() - started) / 1000).toFixed(2);

  console.log(`${model.created ? 'wrote' : 'up to date:'} ${displayPath(model.path)}`);
  console.log(`  size    ${formatBytes(model.bytes)} (${model.bytes} bytes)`);
  console.log(`  sha256  ${model.sha256}`);
  console.log(`  time    ${seconds} s`);
  console.log('Use it with:');
  console.log(`  LLM_MODEL=${basename(model.path)} MODELS_DIR=${displayPath(dirname(model.path))} npm start`);

  const whisper = await ensureWhisperTestModel({ modelsDir, shape: whisperShape, seed });
  console.log(`${whisper.created ? 'wrote' : 'up to date:'} ${displayPath(whisper.path)}`);
  console.log(`  size    ${formatBytes(whisper.bytes)} (${whisper.bytes} bytes)`);
  console.log(`  sha256  ${whisper.sha256}`);
  console.log(`  WHISPER_MODEL=${basename(whisper.path)} MODELS_DIR=${displayPath(dirname(whisper.path))} npm start`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
