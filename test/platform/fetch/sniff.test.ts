import { describe, expect, it } from 'vitest';
import { sniffMedia } from '../../../src/platform/fetch/index.js';

function bytes(...parts: Array<string | number[]>): Uint8Array {
  const buffers = parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part)));
  return Buffer.concat(buffers);
}

function bmp(headerSize: number): Uint8Array {
  const header = Buffer.alloc(54);
  header.write('BM', 0, 'latin1');
  header.writeUInt32LE(headerSize, 14);
  return header;
}

describe('sniffMedia', () => {
  const cases: Array<[name: string, input: Uint8Array, mediaType: string, kind: string, extension: string]> = [
    ['JPEG', bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), 'image/jpeg', 'document', 'jpg'],
    ['PNG', bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), 'image/png', 'document', 'png'],
    ['TIFF little-endian', bytes([0x49, 0x49, 0x2a, 0x00, 8, 0]), 'image/tiff', 'document', 'tiff'],
    ['TIFF big-endian', bytes([0x4d, 0x4d, 0x00, 0x2a, 0, 8]), 'image/tiff', 'document', 'tiff'],
    ['BMP (BITMAPINFOHEADER)', bmp(40), 'image/bmp', 'document', 'bmp'],
    ['BMP (V5 header)', bmp(124), 'image/bmp', 'document', 'bmp'],
    ['WebP', bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 '), 'image/webp', 'document', 'webp'],
    ['PDF', bytes('%PDF-1.7\n'), 'application/pdf', 'document', 'pdf'],
    ['PDF after junk', bytes('x'.repeat(1000), '%PDF-1.4'), 'application/pdf', 'document', 'pdf'],
    ['WAV', bytes('RIFF', [0x24, 0, 0, 0], 'WAVEfmt '), 'audio/wav', 'audio', 'wav'],
    ['MP3 with ID3 tag', bytes('ID3', [4, 0, 0]), 'audio/mpeg', 'audio', 'mp3'],
    ['FLAC behind an ID3 tag', bytes('ID3', [4, 0, 0, 0, 0, 0, 2], 'xx', 'fLaC'), 'audio/flac', 'audio', 'flac'],
    ['AAC behind an ID3 tag with a footer', bytes('ID3', [4, 0, 0x10, 0, 0, 1, 0], 'x'.repeat(138), [0xff, 0xf1, 0x50, 0x80]), 'audio/aac', 'audio', 'aac'],
    ['WAV behind an ID3 tag, as MP3', bytes('ID3', [4, 0, 0, 0, 0, 0, 0], 'RIFF', [0x24, 0, 0, 0], 'WAVEfmt '), 'audio/mpeg', 'audio', 'mp3'],
    ['an ID3 tag longer than the bytes at hand, as MP3', bytes('ID3', [4, 0, 0, 0x7f, 0x7f, 0x7f, 0x7f]), 'audio/mpeg', 'audio', 'mp3'],
    ['MP3 frame sync', bytes([0xff, 0xfb, 0x90, 0x64]), 'audio/mpeg', 'audio', 'mp3'],
    ['OGG', bytes('OggS', [0, 2]), 'audio/ogg', 'audio', 'ogg'],
    ['FLAC', bytes('fLaC', [0, 0, 0, 0x22]), 'audio/flac', 'audio', 'flac'],
    ['M4A', bytes([0, 0, 0, 0x20], 'ftypM4A '), 'audio/mp4', 'audio', 'm4a'],
    ['3GP', bytes([0, 0, 0, 0x18], 'ftyp3gp4'), 'audio/mp4', 'audio', 'm4a'],
    ['WebM', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f]), 'audio/webm', 'audio', 'webm'],
    ['AMR', bytes('#!AMR\n'), 'audio/amr', 'audio', 'amr'],
    ['AAC ADTS', bytes([0xff, 0xf1, 0x50, 0x80]), 'audio/aac', 'audio', 'aac'],
  ];

  it.each(cases)('recognises %s', (_name, input, mediaType, kind, extension) => {
    expect(sniffMedia(input)).toEqual({ mediaType, kind, extension });
  });

  it.each([
    ['empty input', bytes()],
    ['text', bytes('hello, this is plain text')],
    ['random bytes', bytes([0x13, 0x37, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x42])],
    ['BMP magic with an implausible header size', bmp(999)],
    ['BMP magic too short for a header', bytes('BM', [0, 0])],
    ['RIFF of another kind', bytes('RIFF', [0x24, 0, 0, 0], 'AVI LIST')],
    ['PDF marker past the first 1024 bytes', bytes('x'.repeat(1024), '%PDF-1.4')],
    ['frame sync with the reserved layer and no ADTS shape', bytes([0xff, 0xe0, 0, 0])],
  ])('returns null for %s', (_name, input) => {
    expect(sniffMedia(input)).toBeNull();
  });

  it('works on a Uint8Array view into a larger buffer', () => {
    const backing = bytes('junk', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(sniffMedia(backing.subarray(4))?.mediaType).toBe('image/png');
  });
});
