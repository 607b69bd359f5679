/**
 * Grounding: a point counts as covered only with evidence, and evidence is a verbatim span of
 * the speech. Quotes from the model are located in the speech tolerant of punctuation, spacing,
 * width and case (ASR text has none of the first two); a paraphrased quote is repaired to the
 * closest span when it is close enough, and dropped otherwise.
 */

export interface Span {
  start: number;
  end: number;
}

export interface NormalizedText {
  chars: string;
  /** For each normalized char, where its source char starts and ends in the original text. */
  starts: number[];
  ends: number[];
}

const IGNORED = /[\p{P}\p{S}\p{Z}\s]/u;

/** Lowercased NFKC text without punctuation, symbols or spaces, mapped back to the original. */
export function normalizeForMatching(text: string): NormalizedText {
  const normalized: NormalizedText = { chars: '', starts: [], ends: [] };
  let offset = 0;
  for (const char of text) {
    const start = offset;
    offset += char.length;
    for (const piece of char.normalize('NFKC').toLowerCase()) {
      if (IGNORED.test(piece)) continue;
      normalized.chars += piece;
      normalized.starts.push(start);
      normalized.ends.push(offset);
    }
  }
  return normalized;
}

/** How alike a repaired quote must be to its span: the share of the quote's character pairs found there. */
export const MIN_QUOTE_SIMILARITY = 0.6;
const MIN_QUOTE_CHARS = 2;

export function locateQuote(speech: string, quote: string, normalizedSpeech = normalizeForMatching(speech)): Span | null {
  return locateFrom(normalizedSpeech, quote, 0)?.span ?? null;
}

/**
 * Locates a quote at or after a normalized position (exactly when it can, else the closest
 * window anywhere); `next` is the normalized position just after the match.
 */
export function locateFrom(normalizedSpeech: NormalizedText, quote: string, from: number): { span: Span; next: number } | null {
  const needle = normalizeForMatching(quote).chars;
  if (needle.length < MIN_QUOTE_CHARS || normalizedSpeech.chars.length < needle.length) return null;
  const exact = normalizedSpeech.chars.indexOf(needle, from);
  const found = exact >= 0 ? { index: exact, length: needle.length } : closestWindow(normalizedSpeech.chars, needle);
  if (!found) return null;
  const last = found.index + found.length - 1;
  return { span: { start: normalizedSpeech.starts[found.index]!, end: normalizedSpeech.ends[last]! }, next: last + 1 };
}

function bigramCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + 1 < text.length; i++) {
    const pair = text.slice(i, i + 2);
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  return counts;
}

/**
 * The window of the quote's length whose character pairs overlap the quote's most, found in
 * one pass by updating the overlap as the window slides.
 */
function closestWindow(haystack: string, needle: string): { index: number; length: number } | null {
  const wanted = bigramCounts(needle);
  const pairs = needle.length - 1;
  const inWindow = new Map<string, number>();
  let shared = 0;
  const add = (pair: string) => {
    const count = (inWindow.get(pair) ?? 0) + 1;
    inWindow.set(pair, count);
    if (count <= (wanted.get(pair) ?? 0)) shared++;
  };
  const remove = (pair: string) => {
    const count = inWindow.get(pair) ?? 0;
    if (count <= (wanted.get(pair) ?? 0)) shared--;
    inWindow.set(pair, count - 1);
  };
  for (let i = 0; i < pairs; i++) add(haystack.slice(i, i + 2));
  let best = { index: 0, shared };
  for (let start = 1; start + needle.length <= haystack.length; start++) {
    remove(haystack.slice(start - 1, start + 1));
    add(haystack.slice(start + pairs - 1, start + pairs + 1));
    if (shared > best.shared) best = { index: start, shared };
  }
  return best.shared / pairs >= MIN_QUOTE_SIMILARITY ? { index: best.index, length: needle.length } : null;
}

/** Latin words and numbers count as units of two, CJK characters as one. */
function contentUnits(text: string): string[] {
  return normalizeForMatching(text).chars.match(/[\p{Script=Latin}\p{N}]+|./gu) ?? [];
}

const MIN_CONTENT_WEIGHT = 2;

/**
 * Evidence has to say something beyond the point's own name: "关于分期，" is not a statement
 * on 分期意见. Units of the name are discounted; what remains must weigh at least two.
 */
export function saysMoreThanName(evidence: string, pointName: string): boolean {
  const nameUnits = new Set(contentUnits(pointName));
  const weight = contentUnits(evidence)
    .filter((unit) => !nameUnits.has(unit))
    .reduce((sum, unit) => sum + (unit.length > 1 ? 2 : 1), 0);
  return weight >= MIN_CONTENT_WEIGHT;
}

export function overlaps(a: Span, b: Span): boolean {
  return a.start < b.end && b.start < a.end;
}
