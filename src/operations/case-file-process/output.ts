/**
 * Redacted pages to the produced file. Pages are painted from raw pixels, so nothing of the
 * input file survives but what is drawn: no EXIF (orientation, GPS, camera), XMP, ICC profile or
 * comment. Images keep their format (BMP, which libvips cannot write, becomes PNG; pages of a
 * multi-page TIFF stay pages). A PDF becomes a new image-only PDF: one JPEG per page at its
 * original size, no text layer, no document info, outline, attachments or scripts.
 */
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import type { PageRaster } from '../../documents/index.js';
import type { Quad } from '../../engines/ocr/index.js';
import { fillQuads } from './pixels.js';

const JPEG_QUALITY = 90;
const PDF_PAGE_JPEG_QUALITY = 85;

export interface OutputFormat {
  /** The media type of the produced file. */
  contentType: string;
  /** The media type of one encoded page (the PDF's page images are JPEG). */
  pageType: 'image/jpeg' | 'image/png' | 'image/webp' | 'image/tiff';
}

export function outputFormatFor(mediaType: string): OutputFormat {
  switch (mediaType) {
    case 'application/pdf':
      return { contentType: 'application/pdf', pageType: 'image/jpeg' };
    case 'image/jpeg':
    case 'image/webp':
    case 'image/tiff':
    case 'image/png':
      return { contentType: mediaType, pageType: mediaType };
    default:
      return { contentType: 'image/png', pageType: 'image/png' };
  }
}

/** The raster with solid black over every quad, encoded as one page of the output. */
export async function paintPage(raster: PageRaster, quads: readonly Quad[], format: OutputFormat): Promise<Buffer> {
  const pixels = Buffer.from(raster.rgb);
  fillQuads(pixels, { width: raster.width, height: raster.height, channels: 3 }, quads, 0);
  const painted = sharp(pixels, { raw: { width: raster.width, height: raster.height, channels: 3 } });
  switch (format.pageType) {
    case 'image/jpeg':
      return painted.jpeg({ quality: format.contentType === 'application/pdf' ? PDF_PAGE_JPEG_QUALITY : JPEG_QUALITY }).toBuffer();
    case 'image/webp':
      return painted.webp({ quality: JPEG_QUALITY }).toBuffer();
    case 'image/tiff':
      return painted.tiff({ compression: 'lzw' }).toBuffer();
    default:
      return painted.png().toBuffer();
  }
}

export interface EncodedPage {
  encoded: Buffer;
  /** The page's size in the output: points for a PDF page. */
  size: { width: number; height: number };
}

/** A page's size in the output: a PDF page keeps its size in points, an image its pixels. */
export function outputSize(raster: PageRaster): EncodedPage['size'] {
  return raster.points ?? { width: raster.width, height: raster.height };
}

/** The produced file from its encoded pages, in order. */
export async function assemble(pages: readonly EncodedPage[], format: OutputFormat): Promise<Buffer> {
  if (format.contentType === 'application/pdf') return imageOnlyPdf(pages);
  if (pages.length === 1) return pages[0]!.encoded;
  return sharp(
    pages.map((page) => page.encoded),
    { join: { animated: true } },
  )
    .tiff({ compression: 'lzw' })
    .toBuffer();
}

async function imageOnlyPdf(pages: readonly EncodedPage[]): Promise<Buffer> {
  const pdf = await PDFDocument.create({ updateMetadata: false });
  for (const { encoded, size } of pages) {
    const image = await pdf.embedJpg(encoded);
    pdf.addPage([size.width, size.height]).drawImage(image, { x: 0, y: 0, width: size.width, height: size.height });
  }
  return Buffer.from(await pdf.save());
}
