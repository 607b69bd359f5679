/**
 * The BMP worker thread: decodes one BMP (its header already checked against the pixel limit)
 * with bmp-js, a synchronous decoder, to raw RGB, off the gateway's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import decodeBmp from 'bmp-js';
import type { BmpReply } from './bmp.js';

const bytes = workerData as Uint8Array;
let reply: BmpReply;
try {
  const bmp = decodeBmp.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const rgb = new Uint8Array(bmp.width * bmp.height * 3);
  for (let pixel = 0; pixel < bmp.width * bmp.height; pixel++) {
    // bmp-js gives ABGR
    rgb[pixel * 3] = bmp.data[pixel * 4 + 3]!;
    rgb[pixel * 3 + 1] = bmp.data[pixel * 4 + 2]!;
    rgb[pixel * 3 + 2] = bmp.data[pixel * 4 + 1]!;
  }
  reply = { rgb, width: bmp.width, height: bmp.height };
} catch (error) {
  reply = { failure: error instanceof Error ? error.message : String(error) };
}
parentPort!.postMessage(reply, 'rgb' in reply ? [reply.rgb.buffer as ArrayBuffer] : []);
