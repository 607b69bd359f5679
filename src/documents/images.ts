/**
 * Images to pages with sharp: EXIF orientation applied, huge pages capped; each OCR engine
 * prepares the page further as it reads best (ocr/prepare.ts for tesseract). A JPEG or PNG that
 * needs none of that goes on as it came. Multi-page TIFFs give one page each. BMP, which libvips
 * cannot read, is decoded with bmp-ts in a thread (bmp.ts).
 */

/**
 * Longer sides are scaled down to this: more pixels read no better. It is an A4 page's long side
 * at 300 dpi, so that such a scan is read as it came: scaling it by a fraction of a percent reads
 * no better either, and costs a lanczos pass over the whole page.
 */
const MAX_SIDE = 3508;
/** Previews are looked at, not read by OCR: 256 colours keep a document page sharp in about half the bytes. */
const PREVIEW_PNG = { palette: true, compressionLevel: 9, effort: 4 } as const;
import sharp, { type Sharp } from 'sharp';
import { GatewayError } from '../errors.js';
import { PAGE_DECODING } from '../engines/types.js';
import { checkBmpHeader, decodeBmp } from './bmp.js';
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

/**
 * Whether a page goes to the OCR engines as the bytes it came in: a single-page JPEG or PNG that
 * pageImage would turn into the same pixels (upright, no alpha, 8-bit colour or grey, no colour
 * profile to apply, not too long), so that writing it again as PNG would only cost time, and the
 * engine decodes the smaller file.
 */
function readsAsItCame({ format, pages = 1, hasAlpha, depth, space, orientation = 1, icc, width = 0, height = 0 }: sharp.Metadata): boolean {
  const plain = (format === 'jpeg' || format === 'png') && pages === 1 && !hasAlpha && depth === 'uchar' && !icc;
  return plain && (space === 'srgb' || space === 'b-w') && orientation === 1 && Math.max(width, height) <= MAX_SIDE;
}

/**
 * The page as it came, once it is known to decode as an OCR engine will decode it (PAGE_DECODING):
 * by its raster when one is asked for, else at an eighth of its size, which a JPEG decodes at a
 * fraction of the cost (its coded data is read whole at any scale, and an error or a cut-off file
 * stops it alike).
 */
async function pageAsItCame(bytes: Buffer, page: () => Sharp, width: number, height: number, options: PageOptions): Promise<DocumentPage> {
  if (options.raster) return { kind: 'image', image: bytes, raster: { ...(await rgbOf(page())), readWidth: width, readHeight: height } };
  await page()
    .resize({ width: Math.ceil(width / 8) })
    .raw()
    .toBuffer();
  return { kind: 'image', image: bytes };
}

function openBmp(bytes: Buffer, limits: DocumentLimits): OpenedDocument {
  checkBmpHeader(bytes, limits);
  return {
    pageCount: 1,
    page: async (_index, options) => {
      const { rgb, width, height } = await decodeBmp(bytes);
      const image = () => sharp(rgb, { raw: { width, height, channels: 3 } });
      return imagePage(image, Math.max(width, height), options);
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
  const decode = (page: number) => sharp(bytes, { page, limitInputPixels: limits.maxPagePixels, ...PAGE_DECODING });
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
        const metadata = await decode(index).metadata();
        const { width = 0, height = 0 } = metadata;
        if (width * height > limits.maxPagePixels) throw tooManyPixels(limits, width * height);
        if (readsAsItCame(metadata)) return await pageAsItCame(bytes, () => decode(index), width, height, options ?? {});
        return await imagePage(() => decode(index), Math.max(width, height), options);
      } catch (error) {
        throw decodeFailure(error, `page ${index + 1} of the image`, limits);
      }
    },
    close: async () => {},
  };
}
