/**
 * PDFs with pdfjs-dist (legacy build for Node): a page with a usable text layer gives its text
 * and word boxes directly (no OCR, far faster); a page without one is rendered with
 * @napi-rs/canvas at up to 200 DPI (less when OCR_MAX_PAGE_PIXELS says so) and OCRed.
 * Text-layer boxes are in pixels of that same rendering, so both kinds of page share one frame.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getDocument, Util, type PDFDocumentProxy, type PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import sharp from 'sharp';
import { GatewayError } from '../../errors.js';
import { joinLine, removeCjkSpaces } from '../ocr/layout.js';
import type { OcrPage, OcrWord } from '../types.js';
import { normalizePage, tooManyPages, undecodable } from './images.js';
import type { DocumentLimits, DocumentPage, OpenedDocument } from './types.js';

const RENDER_DPI = 200;
const PDF_POINTS_PER_INCH = 72;
/** A text layer with fewer visible characters than this is treated as a scan. */
const MIN_TEXT_LAYER_CHARS = 8;

const pdfjsDir = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const PDFJS_ASSETS = {
  standardFontDataUrl: join(pdfjsDir, 'standard_fonts') + '/',
  cMapUrl: join(pdfjsDir, 'cmaps') + '/',
  cMapPacked: true,
};

type TextItem = Extract<Awaited<ReturnType<PDFPageProxy['getTextContent']>>['items'][number], { str: string }>;
type RenderContext = Parameters<PDFPageProxy['render']>[0]['canvasContext'];

export async function openPdf(bytes: Buffer, limits: DocumentLimits): Promise<OpenedDocument> {
  let document: PDFDocumentProxy;
  try {
    document = await getDocument({
      data: new Uint8Array(bytes),
      ...PDFJS_ASSETS,
      isEvalSupported: false,
      useSystemFonts: false,
      verbosity: 0,
    }).promise;
  } catch (error) {
    if (error instanceof Error && error.name === 'PasswordException') {
      throw new GatewayError('invalid_request', 'the PDF is encrypted with a password; send it unprotected', { cause: error });
    }
    throw undecodable('the PDF', error);
  }
  if (document.numPages > limits.maxPages) {
    await document.destroy();
    throw tooManyPages(document.numPages, limits);
  }
  return {
    pageCount: document.numPages,
    page: async (index) => {
      const page = await document.getPage(index + 1).catch((error: unknown) => {
        throw undecodable(`page ${index + 1} of the PDF`, error);
      });
      try {
        return await readPage(document, page, limits);
      } finally {
        page.cleanup();
      }
    },
    close: () => document.destroy(),
  };
}

/** Points → pixels so the page stays within the pixel limit. */
function renderScale(page: PDFPageProxy, limits: DocumentLimits): number {
  const { width, height } = page.getViewport({ scale: 1 });
  return Math.min(RENDER_DPI / PDF_POINTS_PER_INCH, Math.sqrt(limits.maxPagePixels / (width * height)));
}

async function readPage(document: PDFDocumentProxy, page: PDFPageProxy, limits: DocumentLimits): Promise<DocumentPage> {
  const viewport = page.getViewport({ scale: renderScale(page, limits) });
  const content = await page.getTextContent();
  const items = content.items.filter((item): item is TextItem => 'str' in item);
  const visibleChars = items.reduce((count, item) => count + item.str.replace(/\s/g, '').length, 0);
  if (visibleChars >= MIN_TEXT_LAYER_CHARS) {
    return { kind: 'text', page: textLayerPage(items, viewport.transform, viewport.width, viewport.height) };
  }
  const width = Math.ceil(viewport.width);
  const height = Math.ceil(viewport.height);
  const factory = document.canvasFactory as {
    create(w: number, h: number): { canvas: { toBuffer(mime: 'image/png'): Buffer }; context: unknown };
    destroy(target: unknown): void;
  };
  const target = factory.create(width, height);
  try {
    await page.render({ canvas: null, canvasContext: target.context as RenderContext, viewport, background: 'white' })
      .promise;
    const png = target.canvas.toBuffer('image/png');
    return { kind: 'image', image: await normalizePage(sharp(png), Math.max(width, height)) };
  } finally {
    factory.destroy(target);
  }
}

/** The text layer as an OcrPage: each text run a word with its box in rendered pixels, runs grouped into lines. */
function textLayerPage(items: TextItem[], transform: number[], width: number, height: number): OcrPage {
  const words: OcrWord[] = [];
  const lines: string[][] = [[]];
  let lastBaseline: number | undefined;
  for (const item of items) {
    const [, , c = 0, d = 0, x = 0, y = 0] = Util.transform(transform, item.transform) as number[];
    const fontHeight = Math.hypot(c, d);
    const scale = Math.hypot(transform[0] ?? 1, transform[1] ?? 0);
    const sameLine = lastBaseline !== undefined && Math.abs(y - lastBaseline) < fontHeight / 2;
    if (!sameLine && lines.at(-1)!.length) lines.push([]);
    if (item.str.trim()) {
      lines.at(-1)!.push(item.str);
      words.push({
        text: removeCjkSpaces(item.str.trim()),
        confidence: 100,
        box: { x0: Math.round(x), y0: Math.round(y - fontHeight), x1: Math.round(x + item.width * scale), y1: Math.round(y) },
      });
      lastBaseline = y;
    }
    if (item.hasEOL) lines.push([]);
  }
  const text = lines.map(joinLine).filter(Boolean).join('\n');
  return { text, words, width: Math.round(width), height: Math.round(height), confidence: 100, rotation: 0, deskewRadians: 0 };
}
