/**
 * Images to OCR-ready pages with sharp: EXIF orientation applied, grey, contrast stretched,
 * small scans upscaled (tesseract reads small text better larger) and huge ones capped.
 * Multi-page TIFFs give one page each. BMP, which libvips cannot read, is decoded with bmp-js.
 */
import decodeBmp from 'bmp-js';
import sharp, { type Sharp } from 'sharp';
import { GatewayError } from '../../errors.js';
import type { DocumentLimits, DocumentPage, OpenedDocument, PageOptions, PageRaster } from './types.js';

/**
 * Pages whose longest side is below this are upscaled to it (at most 3×). Measured on the
 * fixtures: CER 4.9% at 1000 px, 3.9% at 1500, 1.9% at 2000, with no slower reading; the
 * blood-test photo reads 5 of 12 key strings at 1920 px against 3 at its own 1280.
 */
const SMALL_SIDE = 2000;
const UPSCALE_TARGET = 2000;
const MAX_UPSCALE = 3;
/** Longer sides are scaled down to this: more pixels slow tesseract without reading better. */
const MAX_SIDE = 3500;

export function undecodable(what: string, cause?: unknown): GatewayError {
  return new GatewayError('invalid_request', `${what} could not be decoded (corrupt or truncated)`, { cause });
}

export function tooManyPixels(limits: DocumentLimits, pixels?: number): GatewayError {
  const count = pixels === undefined ? 'more pixels' : `${pixels} pixels, more`;
  return new GatewayError('payload_too_large', `a page has ${count} than the ${limits.maxPagePixels} allowed (OCR_MAX_PAGE_PIXELS)`);
}

export function tooManyPages(pages: number, limits: DocumentLimits): GatewayError {
  return new GatewayError('payload_too_large', `the file has ${pages} pages, more than the ${limits.maxPages} allowed (OCR_MAX_PAGES)`);
}

/** Upright greyscale PNG of one page, sized for OCR, its ruling lines erased when asked. */
export async function normalizePage(page: Sharp, longestSide: number, eraseLines = false): Promise<Buffer> {
  const scale = longestSide < SMALL_SIDE ? Math.min(MAX_UPSCALE, UPSCALE_TARGET / longestSide) : Math.min(1, MAX_SIDE / longestSide);
  const target = Math.round(longestSide * scale);
  const resized = scale === 1 ? page : page.resize(target, target, { fit: 'inside', kernel: 'lanczos3' });
  const { data, info } = await resized
    .rotate()
    .flatten({ background: 'white' })
    .greyscale()
    .normalise()
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (eraseLines) eraseRulingLines(data, info.width, info.height);
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .toColourspace('b-w')
    .png({ compressionLevel: 1 })
    .toBuffer();
}

const DARK = 128;
/** A dark run this share of the longest side (at least MIN_RULE px) is a line, not a stroke. */
const RULE_SHARE = 1 / 20;
const MIN_RULE = 80;
/** Lines up to this share of the longest side thick (at least 4 px) are erased. */
const THICKNESS_SHARE = 1 / 400;

/**
 * Ruling lines painted white: tesseract takes a bordered table for a picture and reads none of
 * its cells (measured: a bordered header table read as "[ET", and every cell once erased). Only
 * de-identification asks for it: on the real blood-count photo it costs case-ocr 3 of the 6 key
 * strings it reads without. A line is a thin run of dark
 * pixels along a row or column longer than any stroke of a character (a 56 px character is
 * read at 2000 px; lines are at least 100 px); thin, so a shadow on a photo, dark on both
 * sides, is no line. Both directions are found on the original pixels, then erased.
 */
export function eraseRulingLines(grey: Buffer, width: number, height: number): void {
  const longest = Math.max(width, height);
  const minRun = Math.max(MIN_RULE, Math.round(longest * RULE_SHARE));
  const reach = Math.max(4, Math.round(longest * THICKNESS_SHARE));
  const dark = (x: number, y: number) => x >= 0 && y >= 0 && x < width && y < height && grey[y * width + x]! < DARK;
  const erase: number[] = [];
  /**
   * Along each line of pixels, `across` steps perpendicular to it: a line pixel is dark, in a
   * dark stretch across at most twice `reach` thick. A run goes on through (and erases) dark pixels that are no
   * line pixels for up to twice `reach` (where another line crosses), stops at the first light pixel (the
   * gap between two characters whose strokes happen to align), and is erased when it spans at
   * least `minRun`.
   */
  const scan = (lines: number, length: number, point: (line: number, step: number) => [number, number], across: [number, number]) => {
    const [dx, dy] = across;
    const onLine = (x: number, y: number) => {
      if (!dark(x, y)) return false;
      let thickness = 1;
      for (let k = 1; thickness <= 2 * reach && dark(x - dx * k, y - dy * k); k++) thickness++;
      for (let k = 1; thickness <= 2 * reach && dark(x + dx * k, y + dy * k); k++) thickness++;
      return thickness <= 2 * reach;
    };
    for (let line = 0; line < lines; line++) {
      let run: number[] = [];
      let bridge: number[] = [];
      let first = -1;
      let last = -1;
      const close = () => {
        if (last - first + 1 >= minRun) erase.push(...run);
        run = [];
        bridge = [];
        first = -1;
      };
      for (let step = 0; step < length; step++) {
        const [x, y] = point(line, step);
        if (onLine(x, y)) {
          if (first < 0) first = step;
          run.push(...bridge, y * width + x);
          bridge = [];
          last = step;
        } else if (first >= 0 && dark(x, y) && step - last <= 2 * reach) {
          bridge.push(y * width + x);
        } else if (first >= 0) {
          close();
        }
      }
      if (first >= 0) close();
    }
  };
  scan(height, width, (row, x) => [x, row], [0, 1]);
  scan(width, height, (column, y) => [column, y], [1, 0]);
  for (const index of erase) grey[index] = 255;
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

/** The OCR image of a page and, when asked, its raster: both from one decoded page. */
async function imagePage(page: () => Sharp, longestSide: number, options: PageOptions = {}): Promise<DocumentPage> {
  const image = await normalizePage(page(), longestSide, options.eraseRulingLines);
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
