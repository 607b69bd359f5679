import { buffer } from 'node:stream/consumers';
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config/index.js';
import { pagePreview } from '../../documents/index.js';
import { GatewayError } from '../../errors.js';
import { sniffMedia } from '../../platform/fetch/index.js';
import { Limiter } from '../../platform/limiter.js';
import type { Stores } from '../../platform/store/index.js';

/** Wide enough to read a page on a screen, small enough for a hospital intranet. */
export const PAGE_PREVIEW_MAX_WIDTH = 1200;
/** A page decoded holds up to OCR_MAX_PAGE_PIXELS × 3 bytes: only a few at once. */
const PREVIEWS = { maxRunning: 2, maxQueued: 32, queueTimeoutMs: 60_000 };

/**
 * Page N of a file the gateway itself holds (a console upload or a produced de-identified file,
 * named by its signed /files/ token) as a PNG, so the console shows PDFs and multi-page TIFFs
 * page by page. Only blobs behind the gateway's own signed links: never a URL to fetch. The file
 * is opened with the operations' limits (OCR_MAX_PAGES, OCR_MAX_PAGE_PIXELS); nothing of it is logged.
 */
export const pagePreviewRoutes: FastifyPluginAsync<{ config: Config; stores: Stores }> = async (api, { config, stores }) => {
  const limits = { maxPages: config.ocr.maxPages, maxPagePixels: config.ocr.maxPagePixels, pdfHeapMb: config.ocr.pdfHeapMb, pdfPageTimeoutMs: config.ocr.pdfPageTimeoutMs };
  const previews = new Limiter('page preview', PREVIEWS);
  api.get<{ Params: { token: string; page: string } }>('/files/:token/pages/:page', async (request, reply) => {
    const index = pageIndex(request.params.page);
    const bytes = await heldFile(stores, request.params.token);
    const media = sniffMedia(bytes);
    if (!media) throw new GatewayError('unsupported_media', 'the file is no image or PDF');
    const png = await previews.run(() => pagePreview(bytes, media, limits, index, PAGE_PREVIEW_MAX_WIDTH));
    return reply.type('image/png').header('x-content-type-options', 'nosniff').send(png);
  });
};

function pageIndex(page: string): number {
  if (!/^[1-9]\d{0,5}$/.test(page)) throw new GatewayError('invalid_request', 'page must be a whole number from 1');
  return Number(page) - 1;
}

/** The bytes behind one of the gateway's signed tokens; not_found for a token that is unknown, tampered with or expired. */
async function heldFile(stores: Stores, token: string): Promise<Buffer> {
  let key: string;
  try {
    key = stores.fileUrls.verify(token);
  } catch {
    throw new GatewayError('not_found', 'no file behind this link (unknown or expired)');
  }
  const blob = await stores.blobs.open(key);
  if (!blob) throw new GatewayError('not_found', 'the file is gone (deleted or expired)');
  return buffer(blob.stream);
}
