import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findExecutable } from '../../src/engines/asr/index.js';
import { loadConfig } from '../../src/config/index.js';
import { fixturePath } from './paths.js';

const run = promisify(execFile);

/** The real recordings and their transcripts (test/fixtures/audio, with their sources in its README). */
export const AUDIO_FIXTURES = fixturePath('audio');
const TRANSCRIPTS = fixturePath('audio', 'transcripts.json');

export interface Recording {
  file: string;
  seconds: number;
  language: 'zh' | 'en';
  transcript: string;
}

export async function loadRecordings(): Promise<Recording[]> {
  return JSON.parse(await readFile(TRANSCRIPTS, 'utf8')) as Recording[];
}

/** Every container and codec AI-7 accepts, as ffmpeg output options (AMR has no encoder in Debian's ffmpeg). */
export const CONTAINERS: ReadonlyArray<{ name: string; file: string; args: string[] }> = [
  { name: 'WAV 8 kHz stereo 8-bit', file: 'u8-8k-stereo.wav', args: ['-ar', '8000', '-ac', '2', '-c:a', 'pcm_u8'] },
  { name: 'WAV 44.1 kHz 24-bit', file: 's24-44k.wav', args: ['-ar', '44100', '-c:a', 'pcm_s24le'] },
  { name: 'WAV 48 kHz stereo float', file: 'f32-48k-stereo.wav', args: ['-ar', '48000', '-ac', '2', '-c:a', 'pcm_f32le'] },
  { name: 'MP3 with ID3 tag', file: 'id3.mp3', args: ['-c:a', 'libmp3lame', '-b:a', '48k'] },
  { name: 'MP3 bare frames', file: 'bare.mp3', args: ['-c:a', 'libmp3lame', '-b:a', '48k', '-id3v2_version', '0', '-write_xing', '0'] },
  { name: 'OGG/Opus', file: 'opus.ogg', args: ['-c:a', 'libopus', '-b:a', '24k'] },
  { name: 'OGG/Vorbis', file: 'vorbis.ogg', args: ['-c:a', 'libvorbis', '-ar', '22050'] },
  { name: 'FLAC', file: 'audio.flac', args: ['-c:a', 'flac'] },
  { name: 'M4A/AAC', file: 'aac.m4a', args: ['-c:a', 'aac', '-b:a', '48k'] },
  { name: 'AAC (ADTS)', file: 'adts.aac', args: ['-c:a', 'aac', '-b:a', '48k', '-f', 'adts'] },
  { name: 'WebM/Opus', file: 'opus.webm', args: ['-c:a', 'libopus', '-b:a', '24k', '-f', 'webm'] },
];

export async function ffmpegConvert(input: string, output: string, args: readonly string[]): Promise<void> {
  await run('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', '-i', input, ...args, '-y', output]);
}

/**
 * An AMR-NB file of `frames` 20 ms frames of mode 12.2 with an all-zero payload: a valid
 * bitstream ffmpeg decodes (to near-silence), written by hand since Debian's ffmpeg has no AMR
 * encoder.
 */
export async function writeAmrFile(path: string, frames: number): Promise<void> {
  const frame = Buffer.concat([Buffer.from([0x3c]), Buffer.alloc(31)]);
  await writeFile(path, Buffer.concat([Buffer.from('#!AMR\n'), ...Array.from({ length: frames }, () => frame)]));
}

/** Why the real ASR tests cannot run here, or null when whisper-cli and ffmpeg are installed. */
export async function asrToolsMissing(): Promise<string | null> {
  const { asr } = loadConfig({});
  if (!(await findExecutable(asr.whisperBin))) return `whisper-cli not built (${asr.whisperBin}): run npm run setup:whisper`;
  if (!(await findExecutable('ffmpeg'))) return 'ffmpeg not installed (apt-get install ffmpeg)';
  return null;
}

/** Settings for the random test model: greedy, no temperature fallback, one thread (CI has two cores). */
export const FAST_ASR_ENV = {
  ASR_BEAM_SIZE: '1',
  ASR_TEMPERATURE_FALLBACK: 'false',
  ASR_THREADS: '1',
} as const;

/** jfk.wav looped to about two minutes, as FLAC: long enough to abort whisper-cli mid-run. */
export async function writeLongRecording(path: string): Promise<void> {
  await ffmpegConvert(join(AUDIO_FIXTURES, 'jfk.wav'), path, ['-filter_complex', 'aloop=loop=11:size=176000', '-c:a', 'flac']);
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
