/**
 * BMP, which libvips cannot read: the header is checked on the main thread (the pixel limit,
 * a layout bmp-js reads, pixel data that is all there), then bmp-js, a synchronous decoder,
 * decodes it in a worker thread of its own (bmp-worker.ts), so a large page never holds the
 * event loop and a decoder fault ends only that thread.
 */
import { siblingWorker } from '../platform/process/index.js';
import { tooManyPixels, undecodable } from './refusals.js';
import type { DocumentLimits } from './types.js';

export type BmpReply = { rgb: Uint8Array; width: number; height: number } | { failure: string };

/** The BITMAPINFOHEADER fields bmp-js reads (it reads every header as this 40-byte one, then the palette). */
const BMP_HEADER_END = 54;
const BIT_DEPTHS = new Set([1, 4, 8, 15, 16, 24, 32]);
const UNCOMPRESSED = 0;
const RLE8 = 1;
const RLE4 = 2;
const BITFIELDS = 3;
/** bmp-js keeps its pixels outside the JavaScript heap; the heap holds only its code and a palette. */
const BMP_THREAD_HEAP_MB = 64;

interface BmpHeader {
  width: number;
  height: number;
  bitDepth: number;
  compression: number;
  colours: number;
}

function readHeader(bytes: Buffer): BmpHeader | null {
  if (bytes.length < BMP_HEADER_END || bytes.readUInt32LE(14) < 40) return null;
  return {
    width: bytes.readUInt32LE(18),
    height: Math.abs(bytes.readInt32LE(22)),
    bitDepth: bytes.readUInt16LE(28),
    compression: bytes.readUInt32LE(30),
    colours: bytes.readUInt32LE(46),
  };
}

/** Bytes bmp-js reads before the pixels: the header, the palette of a paletted image, the masks of a bit-fields one. */
function pixelDataStart(header: BmpHeader): number {
  const palette = header.bitDepth < 15 ? (header.colours || 2 ** header.bitDepth) * 4 : 0;
  const masks = header.compression === BITFIELDS ? 12 : 0;
  return BMP_HEADER_END + palette + masks;
}

function compressionFits(header: BmpHeader): boolean {
  if (header.compression === UNCOMPRESSED || header.compression === BITFIELDS) return true;
  return (header.compression === RLE8 && header.bitDepth === 8) || (header.compression === RLE4 && header.bitDepth === 4);
}

/**
 * The BMP's width × height, once its header proves it within the limits and readable by bmp-js:
 * a size over the pixel limit is 413, a layout bmp-js misreads or pixel data cut short is 400.
 * (Run-length data cannot be measured ahead; its decoding stops at the end of the file.)
 */
export function checkBmpHeader(bytes: Buffer, limits: DocumentLimits): number {
  const header = readHeader(bytes);
  if (!header || header.width === 0 || header.height === 0) throw undecodable('the BMP image');
  const pixels = header.width * header.height;
  if (pixels > limits.maxPagePixels) throw tooManyPixels(limits, pixels);
  const paletteFits = header.bitDepth >= 15 || header.colours <= 2 ** header.bitDepth;
  if (!BIT_DEPTHS.has(header.bitDepth) || !paletteFits || !compressionFits(header)) throw undecodable('the BMP image');
  const rowBytes = Math.ceil((header.width * header.bitDepth) / 32) * 4;
  const compressed = header.compression === RLE8 || header.compression === RLE4;
  if (pixelDataStart(header) + (compressed ? 0 : rowBytes * header.height) > bytes.length) throw undecodable('the BMP image');
  return pixels;
}

/** Raw RGB of a BMP whose header checkBmpHeader has passed, decoded off the main thread. */
export function decodeBmp(bytes: Buffer): Promise<{ rgb: Buffer; width: number; height: number }> {
  const worker = siblingWorker(import.meta.url, 'bmp-worker', {
    workerData: new Uint8Array(bytes),
    resourceLimits: { maxOldGenerationSizeMb: BMP_THREAD_HEAP_MB },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (reply: BmpReply) => {
      if ('rgb' in reply) resolve({ rgb: Buffer.from(reply.rgb.buffer, reply.rgb.byteOffset, reply.rgb.byteLength), width: reply.width, height: reply.height });
      else reject(undecodable('the BMP image', new Error(reply.failure)));
    });
    worker.once('error', (error) => reject(undecodable('the BMP image', error)));
    worker.once('exit', () => reject(undecodable('the BMP image')));
  });
}
