/**
 * Media type from magic bytes. Content-Type headers and file extensions are never trusted:
 * only what the bytes themselves say decides whether a file reaches an engine.
 */
export type MediaKind = 'document' | 'audio';

/** Enough of the head of a file for every signature here. */
export const SNIFF_BYTES = 4096;

export interface SniffedMedia {
  mediaType: string;
  kind: MediaKind;
  extension: string;
}

interface Signature {
  media: SniffedMedia;
  matches: (bytes: Uint8Array) => boolean;
}

const BMP_HEADER_SIZES = new Set([12, 40, 52, 56, 108, 124]);
const PDF_SEARCH_WINDOW = 1024;

function hasAt(bytes: Uint8Array, offset: number, expected: string | readonly number[]): boolean {
  const codes = typeof expected === 'string' ? [...expected].map((char) => char.charCodeAt(0)) : expected;
  return codes.every((code, index) => bytes[offset + index] === code);
}

function isTiff(bytes: Uint8Array): boolean {
  return hasAt(bytes, 0, [0x49, 0x49, 0x2a, 0x00]) || hasAt(bytes, 0, [0x4d, 0x4d, 0x00, 0x2a]);
}

function isBmp(bytes: Uint8Array): boolean {
  if (bytes.length < 18 || !hasAt(bytes, 0, 'BM')) return false;
  const headerSize = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(14, true);
  return BMP_HEADER_SIZES.has(headerSize);
}

// PDF readers accept junk before the header, so the marker may sit anywhere near the start.
function isPdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, PDF_SEARCH_WINDOW)).includes('%PDF-');
}

function isMpegAudioFrame(bytes: Uint8Array): boolean {
  const second = bytes[1] ?? 0;
  const layer = (second >> 1) & 0b11; // 00 is reserved for MPEG audio (ADTS uses it)
  return bytes[0] === 0xff && (second & 0xe0) === 0xe0 && layer !== 0;
}

function isAdts(bytes: Uint8Array): boolean {
  return bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xf6) === 0xf0;
}

function signature(
  mediaType: string,
  kind: MediaKind,
  extension: string,
  matches: (bytes: Uint8Array) => boolean,
): Signature {
  return { media: { mediaType, kind, extension }, matches };
}

const FLAC = signature('audio/flac', 'audio', 'flac', (b) => hasAt(b, 0, 'fLaC'));
const ADTS_AAC = signature('audio/aac', 'audio', 'aac', isAdts);
/** Besides MP3, the formats found behind an ID3v2 tag (ffmpeg reads past the tag for any demuxer). */
const BEHIND_ID3_TAG: readonly Signature[] = [FLAC, ADTS_AAC];
const ID3_HEADER_BYTES = 10;
const ID3_FOOTER_FLAG = 0x10;

/**
 * What follows an ID3v2 tag, when it is FLAC or AAC rather than MP3 (ffmpeg reads a recording
 * with the demuxer of its sniffed type only); null for MP3, or when the tag ends past these bytes.
 */
function behindId3Tag(bytes: Uint8Array): SniffedMedia | null {
  if (bytes.length < ID3_HEADER_BYTES || !hasAt(bytes, 0, 'ID3')) return null;
  const syncsafeSize = bytes.subarray(6, 10).reduce((size, byte) => (size << 7) | (byte & 0x7f), 0);
  const footer = (bytes[5]! & ID3_FOOTER_FLAG) !== 0 ? ID3_HEADER_BYTES : 0;
  const rest = bytes.subarray(ID3_HEADER_BYTES + syncsafeSize + footer);
  return BEHIND_ID3_TAG.find((candidate) => candidate.matches(rest))?.media ?? null;
}

// Exact magic at fixed offsets first; the weak frame-sync checks go last.
const SIGNATURES: readonly Signature[] = [
  signature('image/jpeg', 'document', 'jpg', (b) => hasAt(b, 0, [0xff, 0xd8, 0xff])),
  signature('image/png', 'document', 'png', (b) => hasAt(b, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  signature('image/tiff', 'document', 'tiff', isTiff),
  signature('image/bmp', 'document', 'bmp', isBmp),
  signature('image/webp', 'document', 'webp', (b) => hasAt(b, 0, 'RIFF') && hasAt(b, 8, 'WEBP')),
  signature('audio/wav', 'audio', 'wav', (b) => hasAt(b, 0, 'RIFF') && hasAt(b, 8, 'WAVE')),
  signature('audio/mpeg', 'audio', 'mp3', (b) => hasAt(b, 0, 'ID3')),
  signature('audio/ogg', 'audio', 'ogg', (b) => hasAt(b, 0, 'OggS')),
  FLAC,
  signature('audio/mp4', 'audio', 'm4a', (b) => hasAt(b, 4, 'ftyp')),
  signature('audio/webm', 'audio', 'webm', (b) => hasAt(b, 0, [0x1a, 0x45, 0xdf, 0xa3])),
  signature('audio/amr', 'audio', 'amr', (b) => hasAt(b, 0, '#!AMR')),
  signature('application/pdf', 'document', 'pdf', isPdf),
  signature('audio/mpeg', 'audio', 'mp3', isMpegAudioFrame),
  ADTS_AAC,
];

export function sniffMedia(bytes: Uint8Array): SniffedMedia | null {
  const media = behindId3Tag(bytes) ?? SIGNATURES.find((candidate) => candidate.matches(bytes))?.media;
  return media ? { ...media } : null;
}
