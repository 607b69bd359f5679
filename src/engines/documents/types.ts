import type { OcrPage } from '../types.js';

export interface DocumentLimits {
  /** Pages per file. */
  maxPages: number;
  /** Decoded pixels per page. */
  maxPagePixels: number;
}

/** A page either already has its text (a PDF text layer) or is an image for OCR (greyscale PNG). */
export type DocumentPage = { kind: 'text'; page: OcrPage } | { kind: 'image'; image: Buffer };

/** An opened file whose pages are decoded one at a time, so a long file never sits in memory whole. */
export interface OpenedDocument {
  pageCount: number;
  page(index: number): Promise<DocumentPage>;
  close(): Promise<void>;
}
