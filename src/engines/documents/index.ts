/**
 * Files to pages: the media type sniffed from magic bytes picks the reader (images with sharp,
 * PDFs with pdfjs-dist in a worker thread); anything else is unsupported_media.
 */
import { GatewayError } from '../../errors.js';
import type { SniffedMedia } from '../../platform/fetch/index.js';
import { openImage } from './images.js';
import { openPdfInWorker } from './pdf-thread.js';
import type { DocumentLimits, OpenedDocument } from './types.js';

export type { DocumentLimits, DocumentPage, OpenedDocument, PageOptions, PageRaster } from './types.js';
export { pageImage } from './images.js';

export const DOCUMENT_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/tiff', 'image/bmp', 'image/webp', 'application/pdf'] as const;

export function openDocument(bytes: Buffer, media: SniffedMedia, limits: DocumentLimits): Promise<OpenedDocument> {
  if (media.mediaType === 'application/pdf') return openPdfInWorker(bytes, limits);
  if ((DOCUMENT_MEDIA_TYPES as readonly string[]).includes(media.mediaType)) return openImage(bytes, media.mediaType, limits);
  return Promise.reject(new GatewayError('unsupported_media', `${media.mediaType} is not a document type case OCR reads`));
}
