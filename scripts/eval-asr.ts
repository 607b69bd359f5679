/**
 * Accuracy and speed of the ASR engine on the real recordings in test/fixtures/audio: CER for
 * Mandarin, WER for English (corpus rates: total edits over total reference length), and the
 * real-time factor (wall time of ffmpeg + whisper-cli over the audio's duration).
 *
 *   npm run eval:asr -- --model ggml-base.bin                (a file in MODELS_DIR, or a path)
 *   npm run eval:asr -- --model ggml-base.bin --threads 4 --beam 5
 *
 * Without --model it takes WHISPER_MODEL, else the first real ggml model in MODELS_DIR, else the
 * random-weight test model; figures of a random model are labelled as such (its words are
 * noise; only the real-time factor means something).
 */
import { readdir } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/index.js';
import { WhisperEngine } from '../src/engines/asr/index.js';
import { AUDIO_FIXTURES, loadRecordings, type Recording } from './lib/audio.js';
import { countErrors, errorRate, type ErrorCount } from './lib/error-rates.js';
import { ensureWhisperTestModel, isRandomWhisperModel } from './lib/models/whisper-model.js';
import { readyStatus } from '../src/engines/readiness.js';

const { values: args } = parseArgs({
  options: { model: { type: 'string' }, threads: { type: 'string' }, beam: { type: 'string' } },
});
const base = loadConfig({
  ...process.env,
  ...(args.threads ? { ASR_THREADS: args.threads } : {}),
  ...(args.beam ? { ASR_BEAM_SIZE: args.beam } : {}),
});

async function chooseModel(): Promise<string> {
  const named = args.model ?? base.asr.model;
  if (named) return isAbsolute(named) ? named : resolve(base.models.dir, named);
  const files = (await readdir(base.models.dir).catch(() => [] as string[])).filter((file) => /^ggml-.*\.bin$/.test(file)).sort();
  for (const file of files) {
    const path = resolve(base.models.dir, file);
    if (!file.includes('silero') && !(await isRandomWhisperModel(path))) return path;
  }
  return (await ensureWhisperTestModel({ modelsDir: base.models.dir })).path;
}

interface Outcome {
  recording: Recording;
  errors: ErrorCount;
  wallMs: number;
}

async function evaluate(modelPath: string, language: 'zh' | 'en', recordings: Recording[]): Promise<Outcome[]> {
  const engine = new WhisperEngine({ settings: { ...base.asr, language }, modelPath });
  await engine.start();
  await readyStatus('asr', () => engine.status(), 0);
  const outcomes: Outcome[] = [];
  for (const recording of recordings) {
    const started = performance.now();
    const transcript = await engine.transcribe({ path: join(AUDIO_FIXTURES, recording.file), mediaType: 'audio/wav' }, new AbortController().signal);
    const wallMs = performance.now() - started;
    const errors = countErrors(language, recording.transcript, transcript.text);
    outcomes.push({ recording, errors, wallMs });
    const rate = errors.referenceLength ? errors.edits / errors.referenceLength : 0;
    console.log(
      `${recording.file.padEnd(40)} ${language}  ${language === 'zh' ? 'CER' : 'WER'} ${(100 * rate).toFixed(1).padStart(6)}%  ` +
        `${(wallMs / 1000).toFixed(2).padStart(6)} s  RTF ${(wallMs / 1000 / recording.seconds).toFixed(3)}`,
    );
    if (process.env.EVAL_ASR_SHOW_TEXT === '1') console.log(`  ${transcript.text}`);
  }
  await engine.close();
  return outcomes;
}

async function main(): Promise<void> {
  const modelPath = await chooseModel();
  const random = await isRandomWhisperModel(modelPath);
  const recordings = await loadRecordings();
  console.log(`model ${modelPath}${random ? '  (RANDOM WEIGHTS: no real model found; error rates are meaningless, RTF is real)' : ''}`);
  console.log(`threads ${base.asr.threads}, beam ${base.asr.beamSize}, temperature fallback ${base.asr.temperatureFallback}\n`);
  const zh = await evaluate(modelPath, 'zh', recordings.filter((r) => r.language === 'zh'));
  const en = await evaluate(modelPath, 'en', recordings.filter((r) => r.language === 'en'));
  const all = [...zh, ...en];
  const wall = all.reduce((sum, o) => sum + o.wallMs, 0) / 1000;
  const audio = all.reduce((sum, o) => sum + o.recording.seconds, 0);
  const label = random ? ' [random-weight model]' : '';
  console.log(`\nCER (zh, ${zh.length} recordings)  ${(100 * errorRate(zh.map((o) => o.errors))).toFixed(1)}%${label}`);
  console.log(`WER (en, ${en.length} recordings)  ${(100 * errorRate(en.map((o) => o.errors))).toFixed(1)}%${label}`);
  console.log(`real-time factor      ${(wall / audio).toFixed(3)} (${wall.toFixed(1)} s for ${audio.toFixed(1)} s of audio)${label}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
