/**
 * Images to pages with sharp: EXIF orientation applied, huge pages capped; each OCR engine
 * prepares the page further as it reads best (ocr/prepare.ts for tesseract). Multi-page TIFFs
 * give one page each. BMP, which libvips cannot read, is decoded with bmp-js.
 */

/** Longer sides are scaled down to this: more pixels read no better. */
const MAX_SIDE = 3500;
/** Previews are looked at, not read by OCR: 256 colours keep a document page sharp in about half the bytes. */
const PREVIEW_PNG = { palette: true, compressionLevel: 9, effort: 4 } as const;
import decodeBmp from 'bmp-js';
import sharp, { type Sharp } from 'sharp';
import { GatewayError } from '../errors.js';
import { tooManyPages, tooManyPixels, undecodable } from './refusals.js';
import type { DocumentLimits, DocumentPage, OpenedDocument, PageOptions, PageRaster } from './types.js';

/**
 * A page as a viewer shows it, for any OCR engine to prepare as it needs: upright (its EXIF
 * orientation applied), flattened on white, in colour, as PNG; a page longer than MAX_SIDE is
 * scaled down to it (more pixels read no better and cost memory).
 */
export async function pageImage(page: Sharp, longestSide: number): Promise<Buffer> {
  const resized = longestSide > MAX_SIDE ? page.resize(MAX_SIDE, MAX_SIDE, { fit: 'inside', kernel: 'lanczos3' }) : page;
  return resized.rotate().flatten({ background: 'white' }).toColourspace('srgb').png({ compressionLevel: 1 }).toBuffer();
}

/** Raw RGB of an upright (EXIF-oriented) page, alpha flattened onto white. */
export async function rgbOf(page: Sharp): Promise<{ rgb: Buffer; width: number; height: number }> {
  const { data, info } = await page
    .rotate()
    .flatten({ background: 'white' })
    .toColourspace('srgb')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return { rgb: data, width: info.width, height: info.height };
}

/** A page's raster no wider than maxWidth, as a small PNG for a screen. */
export function previewPng(raster: PageRaster, maxWidth: number): Promise<Buffer> {
  return sharp(raster.rgb, { raw: { width: raster.width, height: raster.height, channels: 3 } })
    .resize({ width: maxWidth, withoutEnlargement: true, kernel: 'lanczos3' })
    .png(PREVIEW_PNG)
    .toBuffer();
}

/** The OCR image of a page and, when asked, its raster: both from one decoded page. */
async function imagePage(page: () => Sharp, longestSide: number, options: PageOptions = {}): Promise<DocumentPage> {
  const image = await pageImage(page(), longestSide);
  if (!options.raster) return { kind: 'image', image };
  const { width: readWidth = 0, height: readHeight = 0 } = await sharp(image).metadata();
  const raster: PageRaster = { ...(await rgbOf(page())), readWidth, readHeight };
  return { kind: 'image', image, raster };
}

/** BMP width × height from its header, without decoding. */
function bmpPixels(bytes: Buffer): number {
  return Math.abs(bytes.readInt32LE(18)) * Math.abs(bytes.readInt32LE(22));
}

function bmpToSharp(bytes: Buffer): { image: Sharp; longestSide: number } {
  const bmp = decodeBmp.decode(bytes);
  const rgb = Buffer.alloc(bmp.width * bmp.height * 3);
  for (let pixel = 0; pixel < bmp.width * bmp.height; pixel++) {
    // bmp-js gives ABGR
    rgb[pixel * 3] = bmp.data[pixel * 4 + 3]!;
    rgb[pixel * 3 + 1] = bmp.data[pixel * 4 + 2]!;
    rgb[pixel * 3 + 2] = bmp.data[pixel * 4 + 1]!;
  }
  const image = sharp(rgb, { raw: { width: bmp.width, height: bmp.height, channels: 3 } });
  return { image, longestSide: Math.max(bmp.width, bmp.height) };
}

function openBmp(bytes: Buffer, limits: DocumentLimits): OpenedDocument {
  if (bytes.length < 26) throw undecodable('the BMP image');
  const pixels = bmpPixels(bytes);
  if (pixels > limits.maxPagePixels) throw tooManyPixels(limits, pixels);
  return {
    pageCount: 1,
    page: async (_index, options) => {
      let decoded: ReturnType<typeof bmpToSharp>;
      try {
        decoded = bmpToSharp(bytes);
      } catch (error) {
        throw undecodable('the BMP image', error);
      }
      return imagePage(() => decoded.image.clone(), decoded.longestSide, options);
    },
    close: async () => {},
  };
}

/** sharp's refusal of a page over limitInputPixels is a bomb, anything else a broken file. */
function decodeFailure(error: unknown, what: string, limits: DocumentLimits): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof Error && /pixel limit/i.test(error.message)) return tooManyPixels(limits);
  return undecodable(what, error);
}

export async function openImage(bytes: Buffer, mediaType: string, limits: DocumentLimits): Promise<OpenedDocument> {
  if (mediaType === 'image/bmp') return openBmp(bytes, limits);
  const decode = (page: number) => sharp(bytes, { page, limitInputPixels: limits.maxPagePixels, failOn: 'error' });
  let metadata: sharp.Metadata;
  try {
    metadata = await decode(0).metadata();
  } catch (error) {
    throw decodeFailure(error, 'the image', limits);
  }
  const pageCount = metadata.pages ?? 1;
  if (pageCount > limits.maxPages) throw tooManyPages(pageCount, limits);
  return {
    pageCount,
    page: async (index, options) => {
      try {
        const { width = 0, height = 0 } = await decode(index).metadata();
        if (width * height > limits.maxPagePixels) throw tooManyPixels(limits, width * height);
        return await imagePage(() => decode(index), Math.max(width, height), options);
      } catch (error) {
        throw decodeFailure(error, `page ${index + 1} of the image`, limits);
      }
    },
    close: async () => {},
  };
}
