/** Where sentences end, in Chinese and English text: after 。！？；!?; or a line break, or a period before a space. */
const SENTENCE_END = /[。！？；!?;\n]|\.(?=\s)/gu;
/** Weaker places to cut when a stretch of text has no sentence end. */
const CLAUSE_END = /[，、,：:）)\s]/gu;

/** The index just after the last match of `pattern` in text[from, to), if any. */
function lastMatchEnd(text: string, pattern: RegExp, from: number, to: number): number | undefined {
  let found: number | undefined;
  for (const match of text.slice(from, to).matchAll(pattern)) found = from + match.index + match[0].length;
  return found;
}

export function lastSentenceEnd(text: string, from: number, to: number): number | undefined {
  return lastMatchEnd(text, SENTENCE_END, from, to);
}

/** `index`, or one less when it would split a surrogate pair (one character written as two UTF-16 units). */
export function characterBoundary(text: string, index: number): number {
  const code = text.charCodeAt(index - 1);
  return index > 0 && index < text.length && code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}

/**
 * The text shortened to at most `maxChars` (UTF-16 units, as JSON and JavaScript count them),
 * ending where a sentence ends when there is one in the last half, else at a clause break or
 * space, else at a character boundary; `marker` (e.g. "……") is appended and counted.
 */
export function cutAtSentence(text: string, maxChars: number, marker = ''): string {
  if (text.length <= maxChars) return text;
  const limit = Math.max(0, maxChars - marker.length);
  const searchFrom = Math.floor(limit / 2);
  const end =
    lastSentenceEnd(text, searchFrom, limit) ??
    lastMatchEnd(text, CLAUSE_END, searchFrom, limit) ??
    characterBoundary(text, limit);
  return text.slice(0, end).trimEnd() + marker;
}
