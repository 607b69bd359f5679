import { open } from 'node:fs/promises';

/** whisper.cpp's input: 16 kHz, mono, 16-bit PCM. */
export const SAMPLE_RATE = 16_000;
const BYTES_PER_SECOND = SAMPLE_RATE * 2;
const HEADER_SEARCH_BYTES = 4096;

/**
 * Milliseconds of audio in a 16 kHz mono 16-bit WAV, from the size of its `data` chunk (the
 * header ffmpeg writes to a seekable file holds the final size). Null when it is not such a WAV.
 */
export function pcmWavDurationMs(head: Uint8Array): number | null {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const tag = (offset: number) => String.fromCharCode(...head.subarray(offset, offset + 4));
  if (head.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') return null;
  for (let offset = 12; offset + 8 <= head.length; ) {
    const size = view.getUint32(offset + 4, true);
    if (tag(offset) === 'data') return Math.floor((size * 1000) / BYTES_PER_SECOND);
    offset += 8 + size + (size % 2);
  }
  return null;
}

export async function readPcmWavDurationMs(path: string): Promise<number | null> {
  const file = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(HEADER_SEARCH_BYTES), 0, HEADER_SEARCH_BYTES, 0);
    return pcmWavDurationMs(buffer.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}

/** A 16 kHz mono 16-bit WAV of silence, `ms` long. */
export function silentPcmWav(ms: number): Buffer {
  const dataBytes = Math.round((ms * BYTES_PER_SECOND) / 1000 / 2) * 2;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(BYTES_PER_SECOND, 28);
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36);
  header.writeUInt32LE(dataBytes, 40);
  return Buffer.concat([header, Buffer.alloc(dataBytes)]);
}
