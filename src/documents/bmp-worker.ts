/**
 * The BMP worker thread: decodes one BMP (its header already checked by checkBmpHeader) with
 * bmp-ts, a synchronous decoder, to raw RGB, off the gateway's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { decode, type BmpColor } from 'bmp-ts';
import type { BmpReply } from './bmp.js';

interface RunLengthWriter {
  palette: BmpColor[];
  data: Buffer;
  setPixelData(location: number, index: number): number;
}

/**
 * bmp-ts 1.0.9 writes each pixel of run-length data one to three bytes past its place (it adds
 * a channel's offset twice), so RLE4/RLE8 pixels run into each other: write them where its other
 * layouts do (ABGR), an index past the palette white as for uncompressed 8-bit data.
 */
function placeRunLengthPixel(this: RunLengthWriter, location: number, index: number): number {
  const { red, green, blue } = this.palette[index] ?? { red: 0xff, green: 0xff, blue: 0xff };
  this.data[location] = 0;
  this.data[location + 1] = blue;
  this.data[location + 2] = green;
  this.data[location + 3] = red;
  return location + 4;
}

/** bmp-ts exports only decode(): its decoder's prototype is reached through a 1 × 1 BMP decoded. */
function decoderPrototype(): RunLengthWriter {
  const oneByOne = Buffer.alloc(58);
  oneByOne.write('BM', 0, 'latin1');
  oneByOne.writeUInt32LE(58, 2);
  oneByOne.writeUInt32LE(54, 10);
  oneByOne.writeUInt32LE(40, 14);
  oneByOne.writeInt32LE(1, 18);
  oneByOne.writeInt32LE(1, 22);
  oneByOne.writeUInt16LE(1, 26);
  oneByOne.writeUInt16LE(24, 28);
  return Object.getPrototypeOf(decode(oneByOne)) as RunLengthWriter;
}

const bytes = workerData as Uint8Array;
let reply: BmpReply;
try {
  const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  decoderPrototype().setPixelData = placeRunLengthPixel;
  const bmp = decode(input);
  const rgb = new Uint8Array(bmp.width * bmp.height * 3);
  for (let pixel = 0; pixel < bmp.width * bmp.height; pixel++) {
    // bmp-ts gives ABGR
    rgb[pixel * 3] = bmp.data[pixel * 4 + 3]!;
    rgb[pixel * 3 + 1] = bmp.data[pixel * 4 + 2]!;
    rgb[pixel * 3 + 2] = bmp.data[pixel * 4 + 1]!;
  }
  reply = { rgb, width: bmp.width, height: bmp.height };
} catch (error) {
  reply = { failure: error instanceof Error ? error.message : String(error) };
}
parentPort!.postMessage(reply, 'rgb' in reply ? [reply.rgb.buffer as ArrayBuffer] : []);
