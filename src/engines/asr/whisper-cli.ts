import { readFile } from 'node:fs/promises';
import { GatewayError } from '../../errors.js';
import type { Transcript } from '../types.js';
import { describeFailure, runTool } from '../../platform/process/index.js';
import { parseWhisperJson } from './whisper-json.js';

/** Makes whisper write Simplified rather than Traditional characters for Mandarin. */
export const SIMPLIFIED_CHINESE_PROMPT = '以下是普通话的句子。';

export interface WhisperSettings {
  bin: string;
  modelPath: string;
  vadModelPath?: string;
  language: string;
  threads: number;
  beamSize: number;
  temperatureFallback: boolean;
}

/** `quiet` silences whisper's log (-np); the transcript on stdout is discarded either way. */
export function whisperArgs(settings: WhisperSettings, wavPath: string, outputBase: string, quiet = true): string[] {
  return [
    ...['-m', settings.modelPath, '-f', wavPath, '-t', String(settings.threads), '-l', settings.language],
    ...['-bs', String(settings.beamSize), '-bo', String(settings.beamSize)],
    ...(settings.temperatureFallback ? [] : ['-nf']),
    ...(settings.language === 'zh' ? ['--prompt', SIMPLIFIED_CHINESE_PROMPT] : []),
    ...(settings.vadModelPath ? ['--vad', '-vm', settings.vadModelPath] : []),
    ...['-oj', '-of', outputBase],
    ...(quiet ? ['-np'] : []),
  ];
}

export interface WhisperJob {
  wavPath: string;
  /** whisper-cli writes `<outputBase>.json`. */
  outputBase: string;
  audioMs: number;
  timeoutMs: number;
  signal: AbortSignal;
  onSpawn?: (pid: number) => void;
}

/** Transcribes a 16 kHz mono WAV with whisper-cli; the transcript never passes through a log. */
export async function runWhisper(settings: WhisperSettings, job: WhisperJob): Promise<Transcript> {
  const outcome = await runTool(settings.bin, whisperArgs(settings, job.wavPath, job.outputBase), job);
  if (!outcome.ok) {
    if (outcome.failure === 'timeout') {
      throw new GatewayError('timeout', `transcription took longer than ${Math.round(job.timeoutMs / 1000)} s`);
    }
    throw new GatewayError('engine_failed', `whisper-cli ${describeFailure(outcome)}`);
  }
  return parseWhisperJson(await readFile(`${job.outputBase}.json`), job.audioMs);
}
