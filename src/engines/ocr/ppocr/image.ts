/**
 * Pages as raw RGB pixels: decoded, as the detector sees them, and seen through a homography (a
 * perspective warp, bilinear). Text lines are cut from them in crop.ts.
 */
import sharp from 'sharp';
import { greyBrightness } from '../lighting.js';
import { PAGE_DECODING, type Box } from '../../types.js';
import { despeckle } from './despeckle.js';
import { paintAsPaper } from './paint.js';
import { Spares } from './spares.js';

export interface RgbImage {
  /** width × height × 3 bytes, row by row. */
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * Any image sharp reads (the pages come as PNG), as RGB, turned `turn` degrees clockwise (onto a
 * white canvas grown to hold it), with a white margin of `margin` px all round.
 */
export async function decodeRgb(bytes: Uint8Array, margin = 0, turn = 0): Promise<RgbImage> {
  const { data, info } = await sharp(bytes, PAGE_DECODING)
    .removeAlpha()
    .rotate(turn, { background: '#ffffff' })
    .extend({ top: margin, bottom: margin, left: margin, right: margin, background: '#ffffff' })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`expected 3 channels, got ${info.channels}`);
  return { data, width: info.width, height: info.height };
}

/**
 * The page at `width` × `height`, as the detector sees it: its solid black patches (a
 * redaction's paint) seen as the paper beside them (see paint.ts), a 3×3 median (see despeckle), so
 * speckle (a noisy scan, a fax) no longer forms text regions, and its blurred brightness, which
 * each pixel is divided by (see lighting.ts), so text in the shadow of a photo stands out as much
 * as text in the light. Measured: the speckled fixture's CER 7.3% → 0.9% (median); a photo
 * darkened to a third on one side, 4 → 7 of 7 identifiers read (flat field). Lines are cut from
 * the unfiltered page. The despeckled page is lent (see Spares): give it back with giveBackView
 * once it is read.
 */
export async function detectorView(image: RgbImage, width: number, height: number): Promise<{ despeckled: RgbImage; brightness: Uint8Array }> {
  const resized = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .resize(width, height, { fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer();
  paintAsPaper(resized, width, height);
  const { despeckled, grey } = despeckle(resized, width, height, { despeckled: spareBytes.lend(resized.length), grey: spareBytes.lend(width * height) });
  const brightness = await greyBrightness(grey, width, height);
  spareBytes.giveBack(grey);
  return { despeckled: { data: despeckled, width, height }, brightness };
}

/** The despeckled pages of detectorView and their greys, to be written over by the next (see Spares). */
const spareBytes = new Spares(Uint8Array);

/** Takes back a page detectorView despeckled once it will no longer be read. */
export function giveBackView(despeckled: RgbImage): void {
  spareBytes.giveBack(despeckled.data);
}

/** The part of the image inside `box` (whole pixels, within the image). */
export function cropRgb(image: RgbImage, box: Box): RgbImage {
  const width = box.x1 - box.x0;
  const height = box.y1 - box.y0;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const from = ((box.y0 + y) * image.width + box.x0) * 3;
    data.set(image.data.subarray(from, from + width * 3), y * width * 3);
  }
  return { data, width, height };
}
