import { locateFrom, normalizeForMatching, overlaps, type Span } from './evidence.js';

export interface VoiceSegment {
  voice_url: string;
  text: string;
}

/**
 * Where each voice segment's text sits in the speech, placed in order so that a repeated
 * phrase ("好的") lands on its own occurrence; segments that cannot be placed are left out.
 */
export function placeSegments(speech: string, segments: readonly VoiceSegment[]): Array<{ url: string; span: Span }> {
  const normalized = normalizeForMatching(speech);
  let cursor = 0;
  return segments.flatMap((segment) => {
    const found = locateFrom(normalized, segment.text, cursor);
    if (!found) return [];
    cursor = Math.max(cursor, found.next);
    return [{ url: segment.voice_url, span: found.span }];
  });
}

/** The voice_url of every segment whose text overlaps the evidence, each once, in segment order. */
export function voicesFor(evidence: Span, placed: ReadonlyArray<{ url: string; span: Span }>): string[] {
  return [...new Set(placed.filter((segment) => overlaps(segment.span, evidence)).map((segment) => segment.url))];
}
