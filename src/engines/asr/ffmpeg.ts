import { GatewayError } from '../../errors.js';
import { describeFailure, runTool } from '../../platform/process/index.js';
import type { AudioInput } from '../types.js';
import { SAMPLE_RATE, readPcmWavDurationMs } from './wav.js';

export interface NormaliseOptions {
  ffmpegBin: string;
  maxAudioSeconds: number;
  signal: AbortSignal;
}

/** ffmpeg decodes far faster than real time; this only stops a wedged process. */
const FIXED_TIMEOUT_MS = 60_000;
const MS_PER_AUDIO_SECOND = 100;

/**
 * ffmpeg's demuxer for each audio type the sniff recognises (platform/fetch/sniff.ts). Pinned, so
 * ffmpeg parses a recording only as the container its bytes were sniffed as, never as whatever
 * other of its many demuxers would probe best.
 */
const DEMUXERS: Readonly<Record<string, string>> = {
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'audio/flac': 'flac',
  'audio/mp4': 'mov',
  'audio/webm': 'matroska',
  'audio/amr': 'amr',
  'audio/aac': 'aac',
};

/**
 * Arguments that turn the first audio stream of the recording, read with the demuxer of its
 * sniffed type and from local files only (a playlist cannot make ffmpeg open a URL), into 16 kHz
 * mono 16-bit PCM WAV, without metadata (tags may hold names), stopping one second past the limit.
 */
export function ffmpegArgs(input: AudioInput, outputPath: string, maxAudioSeconds: number): string[] {
  const demuxer = DEMUXERS[input.mediaType];
  if (!demuxer) throw new GatewayError('unsupported_media', `voice_url: ${input.mediaType} is not a recording type ASR reads`);
  return [
    ...['-nostdin', '-hide_banner', '-loglevel', 'error', '-threads', '1'],
    ...['-protocol_whitelist', 'file', '-f', demuxer, '-i', input.path],
    ...['-map', '0:a:0', '-vn', '-sn', '-dn', '-map_metadata', '-1'],
    ...['-ac', '1', '-ar', String(SAMPLE_RATE), '-c:a', 'pcm_s16le', '-fflags', '+bitexact', '-flags:a', '+bitexact'],
    ...['-t', String(maxAudioSeconds + 1), '-f', 'wav', '-y', outputPath],
  ];
}

/**
 * Writes the recording as whisper's WAV at `outputPath` and returns its duration. Undecodable
 * (as its sniffed type), silent-empty and over-long recordings are the caller's fault (4xx).
 */
export async function normaliseAudio(input: AudioInput, outputPath: string, options: NormaliseOptions): Promise<number> {
  const outcome = await runTool(options.ffmpegBin, ffmpegArgs(input, outputPath, options.maxAudioSeconds), {
    signal: options.signal,
    timeoutMs: FIXED_TIMEOUT_MS + options.maxAudioSeconds * MS_PER_AUDIO_SECOND,
  });
  if (!outcome.ok) {
    if (outcome.failure === 'exit') {
      throw new GatewayError('invalid_request', 'voice_url: the recording could not be decoded (corrupt, truncated or no audio stream)');
    }
    throw new GatewayError('engine_failed', `ffmpeg ${describeFailure(outcome)}`);
  }
  const durationMs = await readPcmWavDurationMs(outputPath);
  if (durationMs === null) throw new GatewayError('engine_failed', 'ffmpeg wrote no readable WAV');
  if (durationMs === 0) throw new GatewayError('invalid_request', 'voice_url: the recording holds no audio');
  if (durationMs > options.maxAudioSeconds * 1000) {
    throw new GatewayError(
      'payload_too_large',
      `voice_url: the recording is longer than ${options.maxAudioSeconds} s (ASR_MAX_AUDIO_SECONDS)`,
    );
  }
  return durationMs;
}
