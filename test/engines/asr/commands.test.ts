import { describe, expect, it } from 'vitest';
import { ffmpegArgs } from '../../../src/engines/asr/ffmpeg.js';
import { pcmWavDurationMs, silentPcmWav } from '../../../src/engines/asr/wav.js';
import { SIMPLIFIED_CHINESE_PROMPT, whisperArgs, type WhisperSettings } from '../../../src/engines/asr/whisper-cli.js';

const settings: WhisperSettings = {
  bin: '/opt/whisper-cli',
  modelPath: '/models/ggml-base.bin',
  language: 'zh',
  threads: 4,
  beamSize: 5,
  temperatureFallback: true,
};

const valueAfter = (args: string[], flag: string) => args[args.indexOf(flag) + 1];

describe('whisperArgs', () => {
  it('Mandarin gets the Simplified-Chinese prompt, JSON output to the given base, no prints', () => {
    const args = whisperArgs(settings, '/tmp/a.wav', '/tmp/out');
    expect(valueAfter(args, '-m')).toBe('/models/ggml-base.bin');
    expect(valueAfter(args, '-f')).toBe('/tmp/a.wav');
    expect(valueAfter(args, '-t')).toBe('4');
    expect(valueAfter(args, '-l')).toBe('zh');
    expect(valueAfter(args, '--prompt')).toBe(SIMPLIFIED_CHINESE_PROMPT);
    expect(valueAfter(args, '-of')).toBe('/tmp/out');
    expect(args).toEqual(expect.arrayContaining(['-oj', '-np']));
    expect(args).not.toContain('-nf');
    expect(args).not.toContain('--vad');
  });

  it('other languages and auto get no prompt; VAD and greedy decoding when configured', () => {
    const args = whisperArgs(
      { ...settings, language: 'auto', vadModelPath: '/models/vad.bin', beamSize: 1, temperatureFallback: false },
      '/tmp/a.wav',
      '/tmp/out',
    );
    expect(args).not.toContain('--prompt');
    expect(valueAfter(args, '-l')).toBe('auto');
    expect(valueAfter(args, '-vm')).toBe('/models/vad.bin');
    expect(args).toContain('--vad');
    expect(args).toContain('-nf');
    expect(valueAfter(args, '-bs')).toBe('1');
  });
});

describe('ffmpegArgs', () => {
  it('first audio stream to 16 kHz mono 16-bit WAV, metadata dropped, cut one second past the limit', () => {
    const args = ffmpegArgs({ path: '/tmp/in', mediaType: 'audio/wav' }, '/tmp/out.wav', 7200);
    expect(valueAfter(args, '-i')).toBe('/tmp/in');
    expect(valueAfter(args, '-map')).toBe('0:a:0');
    expect(valueAfter(args, '-ar')).toBe('16000');
    expect(valueAfter(args, '-ac')).toBe('1');
    expect(valueAfter(args, '-c:a')).toBe('pcm_s16le');
    expect(valueAfter(args, '-map_metadata')).toBe('-1');
    expect(valueAfter(args, '-t')).toBe('7201');
    expect(args.at(-1)).toBe('/tmp/out.wav');
    expect(args).toContain('-nostdin');
  });

  it('reads the input only as its sniffed container, from local files only', () => {
    const args = ffmpegArgs({ path: '/tmp/in', mediaType: 'audio/mp4' }, '/tmp/out.wav', 60);
    expect(args.slice(args.indexOf('-i') - 4, args.indexOf('-i'))).toEqual(['-protocol_whitelist', 'file', '-f', 'mov']);
    expect(() => ffmpegArgs({ path: '/tmp/in', mediaType: 'video/x-msvideo' }, '/tmp/out.wav', 60)).toThrow(/not a recording type/);
  });
});

describe('pcmWavDurationMs', () => {
  it('reads the data chunk size of a 16 kHz mono 16-bit WAV', () => {
    expect(pcmWavDurationMs(silentPcmWav(1500))).toBe(1500);
    expect(pcmWavDurationMs(silentPcmWav(0))).toBe(0);
  });

  it('skips chunks before data', () => {
    const wav = silentPcmWav(250);
    const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([5, 0, 0, 0]), Buffer.from('INFOx'), Buffer.alloc(1)]);
    const withList = Buffer.concat([wav.subarray(0, 36), list, wav.subarray(36)]);
    expect(pcmWavDurationMs(withList)).toBe(250);
  });

  it('is null for what is not a WAV or has no data chunk in the head', () => {
    expect(pcmWavDurationMs(Buffer.from('OggS\0\0\0\0\0\0\0\0'))).toBeNull();
    expect(pcmWavDurationMs(silentPcmWav(10).subarray(0, 36))).toBeNull();
  });
});
