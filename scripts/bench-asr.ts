/**
 * What the gateway adds to whisper.cpp: the same 16 kHz WAV transcribed by whisper-cli run
 * directly and through POST /ai/v1/asr (safe fetch → ffmpeg → whisper-cli → JSON parse), with
 * the same model, threads and decoding settings, runs alternating so drift hits both sides.
 * Then two recordings at once: ASR_MAX_RUNNING 1 (one job with every core, the other queued)
 * against 2 (two jobs with half the cores each), through the gateway and directly.
 *
 *   npm run bench:asr                                   (random tiny model, 11 s of audio: one window)
 *   npm run bench:asr -- --shape base --seconds 60 --runs 5
 *   npm run bench:asr -- --model ggml-base.bin --beam 5 --fallback
 *
 * The random model writes noise; greedy decoding without fallback (the defaults here) keeps it
 * from spending minutes on temperature retries. Pass --beam 5 --fallback for production settings.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { loadConfig } from '../src/config/index.js';
import { ffmpegArgs, findExecutable, whisperArgs, type WhisperSettings } from '../src/engines/asr/index.js';
import { AUDIO_FIXTURES, ffmpegConvert } from './lib/audio.js';
import { baseUrl, startReadyGateway } from './lib/gateway.js';
import { ensureWhisperTestModel, WHISPER_SHAPES, type WhisperShapeName } from './lib/models/whisper-model.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    model: { type: 'string' },
    shape: { type: 'string', default: 'tiny' },
    seconds: { type: 'string', default: '11' },
    runs: { type: 'string', default: '3' },
    threads: { type: 'string', default: String(availableParallelism()) },
    beam: { type: 'string', default: '1' },
    fallback: { type: 'boolean', default: false },
    language: { type: 'string', default: 'zh' },
  },
});
const runs = Number(args.runs);
const threads = Number(args.threads);
const seconds = Number(args.seconds);

const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const timed = async (task: () => Promise<unknown>) => {
  const started = performance.now();
  await task();
  return performance.now() - started;
};

async function modelPath(): Promise<string> {
  const modelsDir = process.env.MODELS_DIR || './models';
  if (args.model) return isAbsolute(args.model) ? args.model : resolve(modelsDir, args.model);
  const shape = args.shape as WhisperShapeName;
  if (!(shape in WHISPER_SHAPES)) throw new Error(`unknown --shape ${shape}; known: ${Object.keys(WHISPER_SHAPES).join(', ')}`);
  return (await ensureWhisperTestModel({ modelsDir, shape })).path;
}

/** The gateway on a free port, with the ASR engine ready. */
async function startAsrGateway(model: string, env: Record<string, string>) {
  const gateway = await startReadyGateway(
    'asr',
    10 * 60_000,
    {
      ...process.env,
      LOG_LEVEL: 'warn',
      FETCH_ALLOW_LOOPBACK: 'true',
      MODELS_DIR: dirname(model),
      WHISPER_MODEL: basename(model),
      ASR_LANGUAGE: args.language,
      ASR_BEAM_SIZE: args.beam,
      ASR_TEMPERATURE_FALLBACK: String(args.fallback),
      ...env,
    },
    { listen: true },
  );
  const url = `${baseUrl(gateway.app)}/ai/v1/asr`;
  return {
    status: gateway.status,
    transcribe: async (voiceUrl: string) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ request_id: 'bench', voice_url: voiceUrl }),
      });
      if (response.status !== 200) throw new Error(`gateway answered ${response.status}: ${await response.text()}`);
      await response.json();
    },
    close: gateway.close,
  };
}

async function main(): Promise<void> {
  const model = await modelPath();
  const bin = await findExecutable(loadConfig({}).asr.whisperBin);
  if (!bin) throw new Error('whisper-cli is not built: npm run setup:whisper');
  const dir = await mkdtemp(join(tmpdir(), 'bench-asr-'));
  const files = createServer((request, response) => createReadStream(join(dir, basename(request.url ?? ''))).pipe(response));
  await new Promise<void>((ready) => files.listen(0, '127.0.0.1', ready));
  const fileUrl = (name: string) => `http://127.0.0.1:${(files.address() as AddressInfo).port}/${name}`;
  try {
    const wav = join(dir, 'audio.wav');
    const loops = Math.ceil(seconds / 11);
    await ffmpegConvert(join(AUDIO_FIXTURES, 'jfk.wav'), wav, [
      ...['-filter_complex', `aloop=loop=${loops}:size=176000`, '-t', String(seconds)],
      ...['-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le'],
    ]);
    await ffmpegConvert(wav, join(dir, 'audio.m4a'), ['-c:a', 'aac', '-b:a', '48k']);

    const settings = (jobThreads: number): WhisperSettings => ({
      bin,
      modelPath: model,
      language: args.language,
      threads: jobThreads,
      beamSize: Number(args.beam),
      temperatureFallback: args.fallback,
    });
    let job = 0;
    const direct = (jobThreads: number) => execa(bin, whisperArgs(settings(jobThreads), wav, join(dir, `direct-${job++}`)), { stdout: 'ignore', stderr: 'ignore' });
    const decode = (input: string, mediaType: string) =>
      execa('ffmpeg', ffmpegArgs({ path: join(dir, input), mediaType }, join(dir, `decoded-${job++}.wav`), 7200));

    console.log(`model ${model}\naudio ${seconds} s (jfk.wav, looped when longer), language ${args.language}, beam ${args.beam}, fallback ${args.fallback}, ${runs} runs\n`);

    const gateway = await startAsrGateway(model, { ASR_MAX_RUNNING: '1', ASR_THREADS: String(threads) });
    console.log(`gateway engine: ${gateway.status.model} on ${gateway.status.device}`);
    const directMs: number[] = [];
    const gatewayMs: number[] = [];
    const decodeWavMs: number[] = [];
    const decodeM4aMs: number[] = [];
    try {
      await gateway.transcribe(fileUrl('audio.wav')); // first run pays page-cache misses for both sides
      for (let run = 0; run < runs; run++) {
        directMs.push(await timed(() => direct(threads)));
        gatewayMs.push(await timed(() => gateway.transcribe(fileUrl('audio.wav'))));
        decodeWavMs.push(await timed(() => decode('audio.wav', 'audio/wav')));
        decodeM4aMs.push(await timed(() => decode('audio.m4a', 'audio/mp4')));
      }
    } finally {
      await gateway.close();
    }
    const [d, g] = [median(directMs), median(gatewayMs)];
    console.log(`\none recording, ${threads} threads (medians)`);
    console.log(`  whisper-cli directly     ${fmt(d)}   RTF ${(d / 1000 / seconds).toFixed(3)}`);
    console.log(`  gateway POST /ai/v1/asr  ${fmt(g)}   RTF ${(g / 1000 / seconds).toFixed(3)}`);
    console.log(`  ratio gateway/direct     ${(g / d).toFixed(3)}`);
    console.log(`  ffmpeg decode: 16 kHz WAV ${fmt(median(decodeWavMs))}, M4A/AAC ${fmt(median(decodeM4aMs))}`);
    console.log(`  ratio minus WAV decode   ${((g - median(decodeWavMs)) / d).toFixed(3)}`);

    console.log(`\ntwo recordings at once (median wall time for both, the four set-ups interleaved; audio seconds per wall second)`);
    const half = Math.max(1, Math.floor(threads / 2));
    const serial = await startAsrGateway(model, { ASR_MAX_RUNNING: '1', ASR_THREADS: String(threads) });
    const parallel = await startAsrGateway(model, { ASR_MAX_RUNNING: '2', ASR_THREADS: String(half) });
    const both = (gw: typeof serial) => Promise.all([gw.transcribe(fileUrl('audio.wav')), gw.transcribe(fileUrl('audio.wav'))]);
    const setups: Record<string, () => Promise<unknown>> = {
      [`direct, one after the other, ${threads} threads`]: async () => {
        await direct(threads);
        await direct(threads);
      },
      [`direct, side by side, ${half} threads each`]: () => Promise.all([direct(half), direct(half)]),
      [`gateway ASR_MAX_RUNNING=1, ${threads} threads each`]: () => both(serial),
      [`gateway ASR_MAX_RUNNING=2, ${half} threads each`]: () => both(parallel),
    };
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(setups).map((name) => [name, []]));
    try {
      for (let run = 0; run < runs; run++) {
        for (const [name, task] of Object.entries(setups)) times[name]!.push(await timed(task));
      }
    } finally {
      await serial.close();
      await parallel.close();
    }
    const pair = Object.fromEntries(Object.entries(times).map(([name, values]) => [name, median(values)]));
    for (const [name, ms] of Object.entries(pair)) {
      console.log(`  ${name.padEnd(46)} ${fmt(ms).padStart(9)}   ${((2 * seconds * 1000) / ms).toFixed(2)} audio s/s`);
    }
    const [c1, c2] = [pair[`gateway ASR_MAX_RUNNING=1, ${threads} threads each`]!, pair[`gateway ASR_MAX_RUNNING=2, ${half} threads each`]!];
    console.log(`  gateway concurrency 2 vs 1: ${(c1 / c2).toFixed(2)}× the throughput`);
  } finally {
    files.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
