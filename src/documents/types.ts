import type { OcrPage } from '../engines/types.js';

export interface DocumentLimits {
  /** Pages per file. */
  maxPages: number;
  /** Decoded pixels per page, and per image inside a PDF page. */
  maxPagePixels: number;
  /** JavaScript heap, in MB, of the process a PDF is read in. */
  pdfHeapMb: number;
  /** Longest that process may spend opening the PDF or reading one page. */
  pdfPageTimeoutMs: number;
}

/**
 * The page as a viewer shows it, in colour (raw RGB, 3 channels): an image at its own size with
 * its EXIF orientation applied, a PDF page rendered at the same scale as its text-layer boxes.
 * `readWidth`/`readHeight` are the size of the frame the reading's boxes are in (before any OCR
 * turn), so a box scales by width / readWidth onto the raster.
 */
export interface PageRaster {
  rgb: Buffer;
  width: number;
  height: number;
  readWidth: number;
  readHeight: number;
  /** PDF page size in points, to lay the raster out at its original size. */
  points?: { width: number; height: number };
}

/** A page either already has its text (a PDF text layer) or is an image for OCR: upright colour PNG (see pageImage), or a JPEG or PNG as it came where that is the same picture. */
export type DocumentPage = ({ kind: 'text'; page: OcrPage } | { kind: 'image'; image: Buffer }) & { raster?: PageRaster };

export interface PageOptions {
  /** The page's PageRaster comes too (for redaction). */
  raster?: boolean;
}

/** An opened file whose pages are decoded one at a time, so a long file never sits in memory whole. */
export interface OpenedDocument {
  pageCount: number;
  page(index: number, options?: PageOptions): Promise<DocumentPage>;
  close(): Promise<void>;
}
