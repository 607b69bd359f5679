/**
 * BMP, which libvips cannot read: the header is checked on the main thread (the pixel limit,
 * a layout bmp-ts reads, pixel data that is all there), then bmp-ts, a synchronous decoder,
 * decodes it in a worker thread of its own (bmp-worker.ts), so a large page never holds the
 * event loop and a decoder fault ends only that thread.
 */
import { siblingWorker } from '../platform/process/index.js';
import { tooManyPixels, undecodable } from './refusals.js';
import type { DocumentLimits } from './types.js';

export type BmpReply = { rgb: Uint8Array; width: number; height: number } | { failure: string };

/** The file header before the info header. */
const FILE_HEADER_BYTES = 14;
/** The info headers bmp-ts reads: BITMAPINFOHEADER, its V2 and V3 extensions (masks), V4 and V5 (masks inside the header). */
const INFO_HEADER_SIZES = new Set([40, 52, 56, 108, 124]);
const INFO_HEADER_BYTES = 40;
/** bmp-ts reads 15-bit pixels as 32-bit ones. */
const BIT_DEPTHS = new Set([1, 4, 8, 16, 24, 32]);
const UNCOMPRESSED = 0;
const RLE8 = 1;
const RLE4 = 2;
const BITFIELDS = 3;
/** bmp-ts keeps its pixels outside the JavaScript heap; the heap holds only its code and a palette. */
const BMP_THREAD_HEAP_MB = 64;

interface BmpHeader {
  pixelDataOffset: number;
  infoHeaderSize: number;
  width: number;
  height: number;
  bitDepth: number;
  compression: number;
  colours: number;
}

function readHeader(bytes: Buffer): BmpHeader | null {
  if (bytes.length < FILE_HEADER_BYTES + INFO_HEADER_BYTES || !INFO_HEADER_SIZES.has(bytes.readUInt32LE(14))) return null;
  return {
    pixelDataOffset: bytes.readUInt32LE(10),
    infoHeaderSize: bytes.readUInt32LE(14),
    width: bytes.readUInt32LE(18),
    height: Math.abs(bytes.readInt32LE(22)),
    bitDepth: bytes.readUInt16LE(28),
    compression: bytes.readUInt32LE(30),
    colours: bytes.readUInt32LE(46),
  };
}

/**
 * Bytes bmp-ts reads before the pixels: the headers, the masks of a bit-fields image with the
 * 40-byte header (later headers hold them), and the palette (of a paletted image, or as many
 * colours as the header counts). It does not read the header's pixel-data offset.
 */
function pixelDataStart(header: BmpHeader): number {
  const palette = header.bitDepth <= 8 || header.colours > 0 ? (header.colours || 2 ** header.bitDepth) * 4 : 0;
  const masks = header.compression === BITFIELDS && header.infoHeaderSize === INFO_HEADER_BYTES ? 12 : 0;
  return FILE_HEADER_BYTES + header.infoHeaderSize + masks + palette;
}

function compressionFits(header: BmpHeader): boolean {
  if (header.compression === UNCOMPRESSED || header.compression === BITFIELDS) return true;
  return (header.compression === RLE8 && header.bitDepth === 8) || (header.compression === RLE4 && header.bitDepth === 4);
}

/**
 * The BMP's width × height, once its header proves it within the limits and readable by bmp-ts:
 * a size over the pixel limit is 413; a layout bmp-ts misreads (pixels that do not start where
 * it reads them, a depth or header it does not know) or pixel data cut short is 400.
 * (Run-length data cannot be measured ahead; its decoding stops at the end of the file.)
 */
export function checkBmpHeader(bytes: Buffer, limits: DocumentLimits): number {
  const header = readHeader(bytes);
  if (!header || header.width === 0 || header.height === 0) throw undecodable('the BMP image');
  const pixels = header.width * header.height;
  if (pixels > limits.maxPagePixels) throw tooManyPixels(limits, pixels);
  const paletteFits = header.bitDepth > 8 || header.colours <= 2 ** header.bitDepth;
  if (!BIT_DEPTHS.has(header.bitDepth) || !paletteFits || !compressionFits(header)) throw undecodable('the BMP image');
  const rowBytes = Math.ceil((header.width * header.bitDepth) / 32) * 4;
  const compressed = header.compression === RLE8 || header.compression === RLE4;
  const start = pixelDataStart(header);
  if (start !== header.pixelDataOffset || start + (compressed ? 0 : rowBytes * header.height) > bytes.length) throw undecodable('the BMP image');
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
