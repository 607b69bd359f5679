/** A file's refusals as the caller sees them: broken (400), or over a page or pixel limit (413). */
import { GatewayError } from '../errors.js';
import type { DocumentLimits } from './types.js';

export function undecodable(what: string, cause?: unknown): GatewayError {
  return new GatewayError('invalid_request', `${what} could not be decoded (corrupt or truncated)`, { cause });
}

export function tooManyPixels(limits: DocumentLimits, pixels?: number, what = 'a page'): GatewayError {
  const count = pixels === undefined ? 'more pixels' : `${pixels} pixels, more`;
  return new GatewayError('payload_too_large', `${what} has ${count} than the ${limits.maxPagePixels} allowed (OCR_MAX_PAGE_PIXELS)`);
}

export function tooManyPages(pages: number, limits: DocumentLimits): GatewayError {
  return new GatewayError('payload_too_large', `the file has ${pages} pages, more than the ${limits.maxPages} allowed (OCR_MAX_PAGES)`);
}
