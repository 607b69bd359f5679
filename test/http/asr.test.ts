import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureWhisperTestModel } from '../../scripts/lib/models/whisper-model.js';
import { silentPcmWav } from '../../src/engines/asr/wav.js';
import {
  AUDIO_FIXTURES,
  CONTAINERS,
  FAST_ASR_ENV,
  asrToolsMissing,
  isProcessAlive,
  writeLongRecording,
  ffmpegConvert,
  loadRecordings,
  writeAmrFile,
  type Recording,
} from '../../scripts/lib/audio.js';
import { startFileServer, type FileServer } from '../../scripts/lib/file-server.js';
import { PNG_BYTES } from '../support/media-bytes.js';
import { baseUrl, postJson, startGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { enginesWithAsr } from '../support/test-engines.js';
import { loadConfig } from '../../src/config/index.js';
import { WhisperEngine } from '../../src/engines/asr/index.js';
import { TEST_MODELS_DIR } from '../../scripts/lib/paths.js';
import { describeWithTools } from '../support/tools.js';
import { readyStatus, settledStatus } from '../../src/engines/readiness.js';

/**
 * AI-7 end to end on the real path: safe fetch → ffmpeg → whisper-cli (built by
 * npm run setup:whisper) → JSON parser, with the random-weight tiny model. Its words are noise;
 * what must hold are the contract's invariants, on every recording and every container.
 */
interface AsrBody {
  text: string;
  segments: Array<{ start_ms: number; end_ms: number; text: string }>;
}

function expectInvariants(body: AsrBody, seconds: number): void {
  expect(typeof body.text).toBe('string');
  let previous = 0;
  for (const segment of body.segments) {
    expect(Number.isInteger(segment.start_ms) && Number.isInteger(segment.end_ms)).toBe(true);
    expect(segment.start_ms).toBeGreaterThanOrEqual(previous);
    expect(segment.end_ms).toBeGreaterThanOrEqual(segment.start_ms);
    // Lossy encoders pad a few frames; the clamp is to the decoded duration.
    expect(segment.end_ms).toBeLessThanOrEqual(seconds * 1000 + 250);
    expect(segment.text.trim()).toBe(segment.text);
    expect(segment.text.length).toBeGreaterThan(0);
    expect(segment.text).not.toContain('\uFFFD');
    previous = segment.start_ms;
  }
  if (body.segments.length > 0) expect(body.text.length).toBeGreaterThan(0);
  expect(body.text).not.toMatch(/\p{Script=Han}\s+\p{Script=Han}/u);
}

describeWithTools('POST /ai/v1/asr with whisper.cpp and the random tiny model', await asrToolsMissing(), () => {
  let dir: string;
  let files: FileServer;
  let gateway: TestGateway;
  let recordings: Recording[];
  const source = 'wenet_aishell-BAC009S0724W0121.wav';
  const sourceSeconds = 4.28;

  const gatewayFor = async (env: Record<string, string> = {}) => {
    const model = await ensureWhisperTestModel({ modelsDir: TEST_MODELS_DIR });
    const started = await startGateway(
      {
        MODELS_DIR: dirname(model.path),
        WHISPER_MODEL: basename(model.path),
        FETCH_ALLOW_LOOPBACK: 'true',
        ASR_MAX_RUNNING: '2',
        ...FAST_ASR_ENV,
        ...env,
      },
      { listen: true },
    );
    await readyStatus('asr', () => started.app.engineStatus('asr'), 60_000);
    return started;
  };

  const transcribe = async (target: TestGateway, path: string) => {
    const response = await target.app.inject({
      method: 'POST',
      url: '/ai/v1/asr',
      payload: { request_id: 'asr-test', voice_url: files.url(path) },
    });
    return { status: response.statusCode, body: response.json() as AsrBody & { error?: { kind: string; retryable: boolean } } };
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'asr-http-test-'));
    recordings = await loadRecordings();
    const input = join(AUDIO_FIXTURES, source);
    await Promise.all(CONTAINERS.map(({ file, args }) => ffmpegConvert(input, join(dir, file), args)));
    await writeAmrFile(join(dir, 'zero.amr'), 150);
    const m4a = await readFile(join(dir, 'aac.m4a'));
    const cutWav = Buffer.from(silentPcmWav(3000));
    const served: Record<string, Buffer> = {
      '/bad/empty': Buffer.alloc(0),
      '/bad/image.png': PNG_BYTES,
      '/bad/text.wav': Buffer.from('this is not a recording, whatever its name says'),
      '/bad/truncated.m4a': m4a.subarray(0, 4096),
      '/bad/header-only.wav': silentPcmWav(0),
      '/cut.wav': cutWav.subarray(0, 44 + 16_000), // the header promises 3 s, the body holds 0.5 s
    };
    files = await startFileServer((request, response) => {
      const path = request.url ?? '';
      if (served[path]) return void response.end(served[path]);
      const file = path.startsWith('/fixtures/') ? join(AUDIO_FIXTURES, basename(path)) : join(dir, basename(path));
      stat(file).then(
        () => createReadStream(file).pipe(response),
        () => response.writeHead(404).end(),
      );
    });
    gateway = await gatewayFor();
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
    await files?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is ready, naming the model by its hash and the device', () => {
    expect(gateway.app.engineStatus('asr')).toMatchObject({
      state: 'ready',
      configured: true,
      model: expect.stringMatching(/^ggml-tiny-random\.bin@[0-9a-f]{12}$/),
      // The CPU, or the GPU backend whisper-cli said it initialised (a CUDA build on a GPU host).
      device: expect.stringMatching(/^(cpu|gpu: \S+)$/),
    });
  });

  it('transcribes every real recording (zh and en, 16 and 48 kHz) within the invariants', async () => {
    const results = await Promise.all(recordings.map((recording) => transcribe(gateway, `/fixtures/${recording.file}`)));
    results.forEach(({ status, body }, i) => {
      expect(status, recordings[i]!.file).toBe(200);
      expectInvariants(body, recordings[i]!.seconds);
    });
    // Noise, but the whole path produced words somewhere.
    expect(results.some(({ body }) => body.segments.length > 0)).toBe(true);
  }, 120_000);

  it.each(CONTAINERS)('accepts $name', async ({ file }) => {
    const { status, body } = await transcribe(gateway, `/converted/${file}`);
    expect(status).toBe(200);
    expectInvariants(body, sourceSeconds);
  }, 30_000);

  it('accepts AMR-NB (a hand-made bitstream: there is no AMR encoder to convert speech with)', async () => {
    const { status, body } = await transcribe(gateway, '/converted/zero.amr');
    expect(status).toBe(200);
    expectInvariants(body, 3);
  }, 30_000);

  it('transcribes what a cut-off WAV holds', async () => {
    const { status, body } = await transcribe(gateway, '/cut.wav');
    expect(status).toBe(200);
    expectInvariants(body, 0.5);
  }, 30_000);

  // A file served whole that is no recording is the file's fault, told as such; only a fetch
  // that did not bring one whole is the generic fetch_failed.
  it.each([
    ['an empty body', '/bad/empty', 415, 'unsupported_media', false],
    ['an image', '/bad/image.png', 415, 'unsupported_media', false],
    ['text named .wav', '/bad/text.wav', 415, 'unsupported_media', false],
    ['a truncated M4A', '/bad/truncated.m4a', 400, 'invalid_request', false],
    ['a WAV with no samples', '/bad/header-only.wav', 400, 'invalid_request', false],
    ['a missing file', '/converted/nope.wav', 502, 'fetch_failed', true],
  ])('refuses %s', async (_name, path, status, kind, retryable) => {
    const response = await transcribe(gateway, path);
    expect(response.status).toBe(status);
    expect(response.body.error).toMatchObject({ kind, retryable });
  }, 30_000);

  it('refuses recordings over ASR_MAX_AUDIO_SECONDS and ASR_MAX_BYTES with 413', async () => {
    const limited = await gatewayFor({ ASR_MAX_AUDIO_SECONDS: '3', ASR_MAX_BYTES: '300000' });
    try {
      const tooLong = await transcribe(limited, `/fixtures/${source}`); // 4.28 s, 137 kB
      expect(tooLong.status).toBe(413);
      expect(tooLong.body.error).toMatchObject({ kind: 'payload_too_large', retryable: false });
      const tooBig = await transcribe(limited, '/fixtures/jfk.wav'); // 352 kB
      expect(tooBig.status).toBe(413);
      expect(tooBig.body.error).toMatchObject({ kind: 'payload_too_large', retryable: false });
      const fits = await transcribe(limited, '/fixtures/wenet_nst_ID002.wav'); // 2.75 s
      expect(fits.status).toBe(200);
    } finally {
      await limited.close();
    }
  }, 60_000);

  it('a client that disconnects stops its whisper-cli process', async () => {
    const long = join(dir, 'long.flac');
    await writeLongRecording(long);
    const pids: number[] = [];
    const engine = new WhisperEngine({
      settings: loadConfig(FAST_ASR_ENV).asr,
      modelPath: (await ensureWhisperTestModel({ modelsDir: TEST_MODELS_DIR })).path,
      onWhisperSpawn: (pid) => pids.push(pid),
    });
    const watched = await startGateway({ FETCH_ALLOW_LOOPBACK: 'true' }, { engines: enginesWithAsr(engine), listen: true });
    try {
      await settledStatus(() => engine.status(), 60_000);
      const client = new AbortController();
      const request = postJson(`${baseUrl(watched.app)}/ai/v1/asr`, { request_id: 'gone', voice_url: files.url('/converted/long.flac') }, client.signal);
      request.catch(() => undefined);
      while (pids.length === 0) await new Promise((wake) => setTimeout(wake, 20));
      client.abort();
      await expect.poll(() => isProcessAlive(pids[0]!), { timeout: 5_000 }).toBe(false);
    } finally {
      await watched.close();
    }
  }, 60_000);

  it('never logs the transcript', async () => {
    const { body } = await transcribe(gateway, '/fixtures/jfk.wav');
    // The random model's transcript is short (a character or two), but never empty: there is text to look for.
    const texts = [body.text, ...body.segments.map((segment) => segment.text)].map((text) => text.trim()).filter(Boolean);
    expect(texts.length, 'the transcript has text to look for').toBeGreaterThan(0);
    for (const text of texts) expect(gateway.logs.join('\n')).not.toContain(text);
  }, 30_000);
});
