import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureWhisperTestModel } from '../../../scripts/lib/models/whisper-model.js';
import { loadConfig } from '../../../src/config/index.js';
import { WhisperEngine } from '../../../src/engines/asr/index.js';
import { GatewayError } from '../../../src/errors.js';
import { FAST_ASR_ENV, asrToolsMissing, isProcessAlive, writeLongRecording } from '../../../scripts/lib/audio.js';
import { TEST_MODELS_DIR } from '../../../scripts/lib/paths.js';
import { describeWithTools } from '../../support/tools.js';
import { settledStatus } from '../../../src/engines/readiness.js';

describeWithTools('WhisperEngine on the real whisper-cli and ffmpeg', await asrToolsMissing(), () => {
  let dir: string;
  let modelPath: string;
  let longRecording: string;
  const settings = loadConfig(FAST_ASR_ENV).asr;
  const spawned: number[] = [];
  const originalTmp = process.env.TMPDIR;
  let engineTmp: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'asr-engine-test-'));
    // The engine's temp folders land here, so the test can see that none is left behind.
    engineTmp = join(dir, 'tmp');
    await mkdir(engineTmp);
    process.env.TMPDIR = engineTmp;
    modelPath = (await ensureWhisperTestModel({ modelsDir: TEST_MODELS_DIR })).path;
    longRecording = join(dir, 'long.flac');
    await writeLongRecording(longRecording);
  }, 60_000);

  afterAll(async () => {
    process.env.TMPDIR = originalTmp;
    await rm(dir, { recursive: true, force: true });
  });

  const engineWith = (overrides: Partial<typeof settings> = {}, model = modelPath) =>
    new WhisperEngine({ settings: { ...settings, ...overrides }, modelPath: model, onWhisperSpawn: (pid) => spawned.push(pid) });

  it('kills whisper-cli when the caller aborts, leaving no process and no temp file', async () => {
    const engine = engineWith();
    await engine.start();
    expect(engine.status().state).toBe('ready');
    const controller = new AbortController();
    const before = spawned.length;
    const pending = engine.transcribe({ path: longRecording, mediaType: 'audio/flac' }, controller.signal);
    while (spawned.length === before) await new Promise((wake) => setTimeout(wake, 20));
    const pid = spawned.at(-1)!;
    expect(isProcessAlive(pid)).toBe(true);
    controller.abort(new GatewayError('cancelled', 'client went away'));
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
    await expect.poll(() => isProcessAlive(pid), { timeout: 5_000 }).toBe(false);
    expect(await readdir(engineTmp)).toEqual([]);
  }, 60_000);

  it('reports unavailable, with the reason, when whisper-cli or ffmpeg is missing', async () => {
    const noWhisper = engineWith({ whisperBin: join(dir, 'no-such-whisper-cli') });
    await noWhisper.start();
    expect(noWhisper.status()).toMatchObject({ state: 'unavailable', reason: expect.stringContaining('npm run setup:whisper') });
    const noFfmpeg = engineWith({ ffmpegBin: 'no-such-ffmpeg' });
    await noFfmpeg.start();
    expect(noFfmpeg.status()).toMatchObject({ state: 'unavailable', reason: expect.stringContaining('FFMPEG_BIN') });
    await Promise.all([noWhisper.close(), noFfmpeg.close()]); // they would try again every few seconds
  });

  it('reports failed, with whisper.cpp\'s reason, for a file that is not a whisper model, retries, and recovers once it is fixed', async () => {
    const modelFile = join(dir, 'replaced.bin');
    await writeFile(modelFile, Buffer.alloc(4096, 7));
    const engine = new WhisperEngine({ settings, modelPath: modelFile, retry: { initialMs: 200, maxMs: 400 } });
    try {
      await engine.start();
      const status = await settledStatus(() => engine.status(), 60_000);
      expect(status.state).toBe('failed');
      expect(status.reason).toMatch(/whisper-cli could not run the model: .*(bad magic|failed).*; retrying in 0\.2 s$/);
      // Each attempt waits longer, up to the cap: no fast loop.
      await expect.poll(() => engine.status().reason, { timeout: 20_000 }).toMatch(/; retrying in 0\.4 s$/);
      await copyFile(modelPath, modelFile); // the operator puts a good model in place
      await expect.poll(() => engine.status().state, { timeout: 30_000, interval: 100 }).toBe('ready');
    } finally {
      await engine.close();
    }
  }, 60_000);
});
