/**
 * The whisper.cpp engine: every recording is normalised by ffmpeg into a private temp folder,
 * transcribed by one whisper-cli process (killed on abort or past a deadline proportional to
 * the audio's length) and the folder deleted. Nothing of the recording or its text is logged.
 */
import { constants } from 'node:fs';
import { access, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { AsrSettings } from '../../config/index.js';
import type { Logger } from '../../platform/logger.js';
import { withTempDir } from '../../platform/temp.js';
import { checkExpectedHash, type ExpectedHash } from '../../platform/models/trust.js';
import { modelFingerprint, modelLabel } from '../model-version.js';
import type { AsrEngine, AudioInput, EngineStatus, Transcript } from '../types.js';
import { EngineLifecycle } from '../lifecycle.js';
import { describeFailure, runTool } from '../../platform/process/index.js';
import { normaliseAudio } from './ffmpeg.js';
import { silentPcmWav } from './wav.js';
import { runWhisper, whisperArgs, type WhisperSettings } from './whisper-cli.js';

/** Startup, model load and the encoder's first window, whatever the audio's length. */
const FIXED_TIMEOUT_MS = 60_000;
const WARM_UP_TIMEOUT_MS = 120_000;

export interface WhisperEngineOptions {
  settings: AsrSettings;
  modelPath: string;
  vadModelPath?: string;
  /** The sha256 the model must have (MODELS_VERIFY); a mismatch fails the start. */
  expected?: ExpectedHash;
  logger?: Logger;
  /** Tests: told the pid of every whisper-cli process. */
  onWhisperSpawn?: (pid: number) => void;
  /** Delays between start attempts, as the LLM engine's: 1 s, 2 s, 4 s … at most 30 s by default. */
  retry?: { initialMs?: number; maxMs?: number };
}

const RETRY_INITIAL_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/** The absolute path of `command` (a path, or a name looked up on PATH), or null. */
export async function findExecutable(command: string): Promise<string | null> {
  const candidates = command.includes('/')
    ? [command]
    : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next
    }
  }
  return null;
}

export class WhisperEngine implements AsrEngine {
  readonly name = 'asr' as const;
  private readonly lifecycle = new EngineLifecycle('checking whisper-cli, ffmpeg and the model');
  private whisper: WhisperSettings | undefined;
  private ffmpegBin = '';
  private failedStarts = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: WhisperEngineOptions) {}

  status(): EngineStatus {
    return this.lifecycle.status();
  }

  /**
   * Checks the tools and loads the model; when that fails (a tool missing, a model that will not
   * load), tries again after a growing delay, so a fixed installation recovers without a restart.
   */
  async start(): Promise<void> {
    if (this.closed) return;
    await this.attemptStart();
    if (this.lifecycle.state === 'ready' || this.closed) return;
    this.failedStarts += 1;
    const { initialMs = RETRY_INITIAL_MS, maxMs = RETRY_MAX_MS } = this.options.retry ?? {};
    const inMs = Math.min(maxMs, initialMs * 2 ** (this.failedStarts - 1));
    this.lifecycle.willRetry('retrying', inMs);
    this.retryTimer = setTimeout(() => void this.start(), inMs).unref();
  }

  private async attemptStart(): Promise<void> {
    const { settings, modelPath, logger } = this.options;
    const [whisperBin, ffmpegBin] = await Promise.all([findExecutable(settings.whisperBin), findExecutable(settings.ffmpegBin)]);
    if (!whisperBin) {
      return this.lifecycle.become('unavailable', `whisper-cli not found at ${settings.whisperBin}: run npm run setup:whisper or set WHISPER_BIN`);
    }
    if (!ffmpegBin) {
      return this.lifecycle.become('unavailable', `ffmpeg not found (${settings.ffmpegBin}): install it (Debian: apt-get install ffmpeg) or set FFMPEG_BIN`);
    }
    this.ffmpegBin = ffmpegBin;
    const whisper: WhisperSettings = {
      bin: whisperBin,
      modelPath,
      ...(this.options.vadModelPath ? { vadModelPath: this.options.vadModelPath } : {}),
      language: settings.language,
      threads: settings.threads,
      beamSize: settings.beamSize,
      temperatureFallback: settings.temperatureFallback,
    };
    try {
      const { sha256 } = await modelFingerprint(modelPath);
      const verified = checkExpectedHash(modelPath, sha256, this.options.expected);
      this.lifecycle.serves(modelLabel(modelPath, sha256), verified);
      this.lifecycle.runsOn(await warmUp(whisper));
    } catch (error) {
      const reason = error instanceof Error ? error.message : 'whisper-cli could not load the model';
      logger?.warn({ engine: 'asr', reason }, 'asr engine failed to start');
      return this.lifecycle.become('failed', reason);
    }
    this.whisper = whisper;
    this.failedStarts = 0;
    this.lifecycle.ready();
    const { model, device } = this.status();
    logger?.info({ engine: 'asr', model, device, threads: whisper.threads }, 'asr engine ready');
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.lifecycle.become('unavailable', 'the ASR engine is closed');
  }

  async transcribe(audio: AudioInput, signal: AbortSignal): Promise<Transcript> {
    const whisper = this.whisper;
    if (!whisper) throw new Error('the ASR engine is not ready'); // the registry checks readiness first
    const { settings, logger } = this.options;
    return withTempDir('asr', async (dir) => {
      const started = performance.now();
      const wavPath = join(dir, 'audio.wav');
      const audioMs = await normaliseAudio(audio, wavPath, {
        ffmpegBin: this.ffmpegBin,
        maxAudioSeconds: settings.maxAudioSeconds,
        signal,
      });
      const decodedAt = performance.now();
      const transcript = await runWhisper(whisper, {
        wavPath,
        outputBase: join(dir, 'transcript'),
        audioMs,
        timeoutMs: FIXED_TIMEOUT_MS + settings.timeoutFactor * audioMs,
        signal,
        ...(this.options.onWhisperSpawn ? { onSpawn: this.options.onWhisperSpawn } : {}),
      });
      const finished = performance.now();
      logger?.debug(
        {
          engine: 'asr',
          mediaType: audio.mediaType,
          audioMs,
          decodeMs: Math.round(decodedAt - started),
          whisperMs: Math.round(finished - decodedAt),
          realTimeFactor: Number(((finished - decodedAt) / audioMs).toFixed(3)),
          segments: transcript.segments.length,
        },
        'transcribed',
      );
      return transcript;
    });
  }
}

const GPU_BACKEND = /whisper_backend_init_gpu: using (\S+) backend/;
const LOAD_ERROR = /^.*(?:error|failed|invalid).*$/im;

/**
 * One second of silence through whisper-cli: proves the binary runs and loads the model, and
 * tells the device from its log (the log of silence holds no patient data).
 */
async function warmUp(whisper: WhisperSettings): Promise<string> {
  return withTempDir('asr-warmup', async (dir) => {
    const wavPath = join(dir, 'silence.wav');
    await writeFile(wavPath, silentPcmWav(1000));
    const outcome = await runTool(whisper.bin, whisperArgs(whisper, wavPath, join(dir, 'out'), false), {
      signal: new AbortController().signal,
      timeoutMs: WARM_UP_TIMEOUT_MS,
      keepStderr: true,
    });
    if (!outcome.ok) {
      const detail = LOAD_ERROR.exec(outcome.stderr)?.[0].trim() ?? describeFailure(outcome);
      throw new Error(`whisper-cli could not run the model: ${detail}`);
    }
    const gpu = GPU_BACKEND.exec(outcome.stderr)?.[1];
    return gpu ? `gpu: ${gpu}` : 'cpu';
  });
}
