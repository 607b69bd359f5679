/**
 * Files to pages: the media type sniffed from magic bytes picks the reader (images with sharp,
 * PDFs with pdfjs-dist in a child process); anything else is unsupported_media.
 */
import { GatewayError } from '../errors.js';
import type { SniffedMedia } from '../platform/fetch/index.js';
import { openImage, previewPng } from './images.js';
import { openPdfInProcess } from './pdf-process.js';
import type { DocumentLimits, OpenedDocument } from './types.js';

export type { DocumentLimits, DocumentPage, OpenedDocument, PageOptions, PageRaster } from './types.js';
export { pageImage } from './images.js';

export const DOCUMENT_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/tiff', 'image/bmp', 'image/webp', 'application/pdf'] as const;

export function openDocument(bytes: Buffer, media: SniffedMedia, limits: DocumentLimits): Promise<OpenedDocument> {
  if (media.mediaType === 'application/pdf') return openPdfInProcess(bytes, limits);
  if ((DOCUMENT_MEDIA_TYPES as readonly string[]).includes(media.mediaType)) return openImage(bytes, media.mediaType, limits);
  return Promise.reject(new GatewayError('unsupported_media', `${media.mediaType} is not a document type case OCR reads`));
}

/**
 * Page `index` (from 0) of a file for a person to look at (the operator's console): the page's
 * raster as de-identification paints it, so an original page and its de-identified page line
 * up, scaled down to at most `maxWidth` pixels wide, as PNG. The file's limits apply as for
 * the operations; a page the file does not have is invalid_request.
 */
export async function pagePreview(bytes: Buffer, media: SniffedMedia, limits: DocumentLimits, index: number, maxWidth: number): Promise<Buffer> {
  const document = await openDocument(bytes, media, limits);
  try {
    if (!Number.isInteger(index) || index < 0 || index >= document.pageCount) {
      throw new GatewayError('invalid_request', `page ${index + 1} does not exist: the file has ${document.pageCount} page(s)`);
    }
    const { raster } = await document.page(index, { raster: true });
    return await previewPng(raster!, maxWidth);
  } finally {
    await document.close();
  }
}
