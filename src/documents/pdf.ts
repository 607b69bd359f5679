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
import { GatewayError, isGatewayError } from '../errors.js';
import { boxOfChars, joinLine, removeCjkSpaces } from '../engines/ocr/index.js';
import type { OcrPage, OcrWord } from '../engines/types.js';
import { pageImage, rgbOf } from './images.js';
import { tooManyPages, tooManyPixels, undecodable } from './refusals.js';
import type { DocumentLimits, DocumentPage, OpenedDocument, PageOptions, PageRaster } from './types.js';

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

/** pdf.js's warning when it leaves out an image over maxImageSize instead of decoding it. */
const IMAGE_LEFT_OUT = 'Image exceeded maximum allowed size';
const PDFJS_WARNINGS = 1;
let imagesLeftOut = 0;

/**
 * pdf.js only warns when it leaves out an image over maxImageSize, and draws the page without
 * it. The PDF thread, where pdf.js is the only code that warns, hands its warnings here, so such
 * a page is refused rather than read as if the image were not there.
 */
export function notePdfjsWarning(message: unknown): void {
  if (String(message).includes(IMAGE_LEFT_OUT)) imagesLeftOut++;
}

/**
 * pdfjs as the gateway runs it: no eval, no system fonts, fonts and CMaps from the package;
 * images inside a page of more than `maxImagePixels` are left out rather than decoded (a few
 * KB of compressed image can claim gigabytes of pixels).
 */
export function loadPdf(bytes: Buffer, maxImagePixels?: number): Promise<PDFDocumentProxy> {
  const bounded = maxImagePixels === undefined ? { verbosity: 0 } : { maxImageSize: maxImagePixels, verbosity: PDFJS_WARNINGS };
  return getDocument({ data: new Uint8Array(bytes), ...PDFJS_ASSETS, isEvalSupported: false, useSystemFonts: false, ...bounded }).promise;
}

export async function openPdf(bytes: Buffer, limits: DocumentLimits): Promise<OpenedDocument> {
  let document: PDFDocumentProxy;
  try {
    document = await loadPdf(bytes, limits.maxPagePixels);
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
    page: async (index, options) => {
      const page = await document.getPage(index + 1).catch((error: unknown) => {
        throw undecodable(`page ${index + 1} of the PDF`, error);
      });
      const leftOutBefore = imagesLeftOut;
      try {
        const read = await readPage(document, page, limits, options);
        if (imagesLeftOut > leftOutBefore) throw tooManyPixels(limits, undefined, `an image on page ${index + 1} of the PDF`);
        return read;
      } catch (error) {
        // pdf.js finds most damage only when it reads the page's content (a bad xref entry, a broken stream).
        throw isGatewayError(error) ? error : undecodable(`page ${index + 1} of the PDF`, error);
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

async function readPage(document: PDFDocumentProxy, page: PDFPageProxy, limits: DocumentLimits, options: PageOptions = {}): Promise<DocumentPage> {
  const viewport = page.getViewport({ scale: renderScale(page, limits) });
  const points = page.getViewport({ scale: 1 });
  const content = await page.getTextContent();
  const items = content.items.filter((item): item is TextItem => 'str' in item);
  const visibleChars = items.reduce((count, item) => count + item.str.replace(/\s/g, '').length, 0);
  const rasterOf = async (png: Buffer, readWidth: number, readHeight: number): Promise<PageRaster> => ({
    ...(await rgbOf(sharp(png))),
    readWidth,
    readHeight,
    points: { width: points.width, height: points.height },
  });
  if (visibleChars >= MIN_TEXT_LAYER_CHARS) {
    const text = textLayerPage(items, viewport.transform, viewport.width, viewport.height);
    if (!options.raster) return { kind: 'text', page: text };
    return { kind: 'text', page: text, raster: await rasterOf(await render(document, page, viewport), text.width, text.height) };
  }
  const png = await render(document, page, viewport);
  const image = await pageImage(sharp(png), Math.max(Math.ceil(viewport.width), Math.ceil(viewport.height)));
  if (!options.raster) return { kind: 'image', image };
  const { width = 0, height = 0 } = await sharp(image).metadata();
  return { kind: 'image', image, raster: await rasterOf(png, width, height) };
}

/** The page drawn on white at the viewport's scale, as PNG. */
export async function render(document: PDFDocumentProxy, page: PDFPageProxy, viewport: ReturnType<PDFPageProxy['getViewport']>): Promise<Buffer> {
  const factory = document.canvasFactory as {
    create(w: number, h: number): { canvas: { toBuffer(mime: 'image/png'): Buffer }; context: unknown };
    destroy(target: unknown): void;
  };
  const target = factory.create(Math.ceil(viewport.width), Math.ceil(viewport.height));
  try {
    await page.render({ canvas: null, canvasContext: target.context as RenderContext, viewport, background: 'white' }).promise;
    return target.canvas.toBuffer('image/png');
  } finally {
    factory.destroy(target);
  }
}

function roundBox(box: OcrWord['box']): OcrWord['box'] {
  return { x0: Math.round(box.x0), y0: Math.round(box.y0), x1: Math.round(box.x1), y1: Math.round(box.y1) };
}

/** The text layer as an OcrPage: each text run a word with its box in rendered pixels, runs grouped into lines. */
function textLayerPage(items: TextItem[], transform: number[], width: number, height: number): OcrPage {
  const words: OcrWord[] = [];
  const lines: string[] = [];
  let current: string[] = [];
  const endLine = () => {
    const text = joinLine(current);
    if (text) lines.push(text);
    current = [];
  };
  let lastBaseline: number | undefined;
  for (const item of items) {
    const [, , c = 0, d = 0, x = 0, y = 0] = Util.transform(transform, item.transform) as number[];
    const fontHeight = Math.hypot(c, d);
    const scale = Math.hypot(transform[0] ?? 1, transform[1] ?? 0);
    const sameLine = lastBaseline !== undefined && Math.abs(y - lastBaseline) < fontHeight / 2;
    if (!sameLine) endLine();
    if (item.str.trim()) {
      current.push(item.str);
      const run = { x0: x, y0: y - fontHeight, x1: x + item.width * scale, y1: y };
      // A run often holds several fields ("姓名：张三  性别：男"): each space-separated part is a word.
      for (const part of item.str.matchAll(/\S+/gu)) {
        const box = boxOfChars(item.str, run, part.index, part.index + part[0].length);
        words.push({ text: removeCjkSpaces(part[0]), confidence: 100, box: roundBox(box), line: lines.length });
      }
      lastBaseline = y;
    }
    if (item.hasEOL) endLine();
  }
  endLine();
  return { text: lines.join('\n'), words, width: Math.round(width), height: Math.round(height), confidence: 100, rotation: 0, deskewRadians: 0 };
}
