import { characterBoundary, lastSentenceEnd } from '../text/sentences.js';
import type { Span } from './evidence.js';

/** A window may end this far before its full size to end on a sentence boundary. */
const BOUNDARY_SEARCH_SHARE = 0.3;

/**
 * Splits a speech into windows of at most `maxChars` that overlap by about `overlapChars`,
 * ending on sentence boundaries where the text has them (ASR text often has none; then the
 * cut falls mid-sentence and the overlap keeps a statement whole in one of the two windows).
 */
export function splitIntoWindows(text: string, maxChars: number, overlapChars: number): Span[] {
  if (text.length <= maxChars) return [{ start: 0, end: text.length }];
  const windows: Span[] = [];
  let start = 0;
  for (;;) {
    const limit = start + maxChars;
    if (limit >= text.length) {
      windows.push({ start, end: text.length });
      return windows;
    }
    const end =
      lastSentenceEnd(text, limit - Math.floor(maxChars * BOUNDARY_SEARCH_SHARE), limit) ?? characterBoundary(text, limit);
    windows.push({ start, end });
    start = Math.max(start + 1, end - overlapChars);
  }
}
