import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/contract/operations.js';
import { readyStatus } from '../../src/engines/readiness.js';
import { AUDIO_FIXTURES, FAST_ASR_ENV, asrToolsMissing, ffmpegConvert } from '../../scripts/lib/audio.js';
import { FUZZ } from '../support/contract-fuzz.js';
import { startFileServer, type FileServer } from '../../scripts/lib/file-server.js';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { applyMutation, behindId3Tag, mutations } from '../support/hostile-files.js';
import { ensureWhisperTestModel } from '../../scripts/lib/models/whisper-model.js';
import { TEST_MODELS_DIR } from '../../scripts/lib/paths.js';
import { describeWithTools } from '../support/tools.js';

/** One second of speech in each container; the WAV as 16-bit PCM with the canonical 44-byte header. */
const CONTAINERS = {
  wav: ['-c:a', 'pcm_s16le', '-ar', '16000'],
  mp3: ['-c:a', 'libmp3lame', '-b:a', '32k'],
  m4a: ['-c:a', 'aac', '-b:a', '32k'],
  ogg: ['-c:a', 'libopus', '-b:a', '24k'],
} as const;
/** Offsets of the canonical WAV header's fields: RIFF size, channels, sample rate, byte rate, block align, bits, data size. */
const WAV_FIELDS = { riffSize: 4, channels: 22, sampleRate: 24, byteRate: 28, blockAlign: 32, bits: 34, dataSize: 40 };
const ANSWER_WITHIN_MS = 30_000;
const RUNS_PER_KIND = Math.min(FUZZ.runs, Number(process.env.FUZZ_DECODER_RUNS ?? 8));
/** Each recording costs a whisper-cli run (about a second): the suite gives each container 3 s. */
const KIND_MS = process.env.FUZZ_ROUTE_SECONDS ? FUZZ.routeMs : 3_000;

/**
 * Decoder fuzzing of AI-7 on the real path (safe fetch → ffmpeg → whisper-cli on the random tiny
 * model): recordings truncated, mutated, or whose WAV header lies about length, rate and layout.
 * Each answers a 200 or a 4xx naming voice_url, in bounded time; the ASR temp folders are gone.
 */
describeWithTools('decoder fuzzing: broken recordings through POST /ai/v1/asr', await asrToolsMissing(), () => {
  let gateway: TestGateway;
  let server: FileServer;
  let temp: string;
  const bases = new Map<string, Buffer>();
  const served = new Map<string, Buffer>();
  const originalTmp = process.env.TMPDIR;
  let next = 1;

  beforeAll(async () => {
    temp = await mkdtemp(join(tmpdir(), 'audio-fuzz-'));
    const source = join(AUDIO_FIXTURES, 'wenet_aishell-BAC009S0724W0121.wav');
    for (const [kind, args] of Object.entries(CONTAINERS)) {
      const path = join(temp, `base.${kind}`);
      await ffmpegConvert(source, path, ['-t', '1', ...args]);
      bases.set(kind, await readFile(path));
      await rm(path);
    }
    server = await startFileServer((request, response) => {
      const bytes = served.get(request.url ?? '');
      if (bytes) response.end(bytes);
      else response.writeHead(404).end();
    });
    const model = await ensureWhisperTestModel({ modelsDir: TEST_MODELS_DIR });
    gateway = await startGateway({
      MODELS_DIR: dirname(model.path),
      WHISPER_MODEL: basename(model.path),
      FETCH_ALLOW_LOOPBACK: 'true',
      LOG_LEVEL: 'warn',
      ...FAST_ASR_ENV,
    });
    await readyStatus('asr', () => gateway.app.engineStatus('asr'), 60_000);
    process.env.TMPDIR = temp; // the engine's temp folders land here
  }, 90_000);
  afterAll(async () => {
    await gateway?.close();
    await server?.close();
    process.env.TMPDIR = originalTmp;
    await rm(temp, { recursive: true, force: true });
  });

  async function transcribe(bytes: Buffer, name: string) {
    const path = `/${next++}-${name}`;
    served.set(path, bytes);
    try {
      return await gateway.app.inject({ method: 'POST', url: OPERATIONS.asr.path, payload: { request_id: `fuzz-${next}`, voice_url: server.url(path) } });
    } finally {
      served.delete(path);
    }
  }

  async function check(bytes: Buffer, name: string): Promise<void> {
    const started = performance.now();
    const response = await transcribe(bytes, name);
    expect(performance.now() - started, name).toBeLessThan(ANSWER_WITHIN_MS);
    if (response.statusCode === 200) return;
    const { error } = response.json<{ error: { kind: string; message: string } }>();
    expect(response.statusCode, `${name}: ${error.kind}: ${error.message}`).toBeGreaterThanOrEqual(400);
    expect(response.statusCode, `${name}: ${error.kind}: ${error.message}`).toBeLessThan(500);
    expect(error.message).toMatch(/voice_url/);
  }

  it.each(Object.keys(CONTAINERS))('mutated and truncated %s recordings', async (kind) => {
    const base = bases.get(kind)!;
    // A time budget, not fast-check's interrupt: that fails a property interrupted before its first
    // run, which a loaded machine can cause; here the first recording always runs, later ones while time is left.
    const deadline = performance.now() + KIND_MS;
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(mutations(base.length), async (mutation) => {
        if (checked > 0 && performance.now() > deadline) return;
        checked++;
        await check(applyMutation(base, mutation), `x.${kind}`);
      }),
      { seed: FUZZ.seed, numRuns: RUNS_PER_KIND, endOnFailure: true },
    );
    expect(checked).toBeGreaterThan(0);
  }, KIND_MS + 120_000);

  it.each(Object.entries(WAV_FIELDS).flatMap(([field, offset]) => [0, 0xffffffff].map((value) => [field, offset, value] as const)))(
    'a WAV whose %s field (offset %i) says %i',
    async (field, offset, value) => {
      const wav = Buffer.from(bases.get('wav')!);
      if (field === 'channels' || field === 'blockAlign' || field === 'bits') wav.writeUInt16LE(value & 0xffff, offset);
      else wav.writeUInt32LE(value >>> 0, offset);
      await check(wav, `${field}-${value}.wav`);
    },
    60_000,
  );

  it('reads a recording only as its sniffed type: FLAC behind an ID3 tag as FLAC, a WAV behind one (sniffed as MP3) not at all', async () => {
    expect((await transcribe(bases.get('wav')!, 'plain.wav')).statusCode).toBe(200);
    const flacPath = join(temp, 'tagged.flac');
    await ffmpegConvert(join(AUDIO_FIXTURES, 'wenet_aishell-BAC009S0724W0121.wav'), flacPath, ['-t', '1', '-c:a', 'flac']);
    const taggedFlac = behindId3Tag(await readFile(flacPath));
    await rm(flacPath);
    expect((await transcribe(taggedFlac, 'tagged.flac')).statusCode).toBe(200); // FLAC may carry an ID3 tag
    const disguised = await transcribe(behindId3Tag(bases.get('wav')!), 'disguised.mp3');
    expect(disguised.statusCode).toBe(400);
    expect(disguised.json<{ error: { message: string } }>().error.message).toMatch(/voice_url: the recording could not be decoded/);
  }, 60_000);

  it('left no temp folder and still answers', async () => {
    expect(await readdir(temp)).toEqual([]);
    expect((await gateway.app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });
});
