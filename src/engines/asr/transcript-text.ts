/** Han characters, CJK punctuation and full-width forms: Chinese text never takes a space next to them. */
const CJK = /[\p{Script=Han}\u3000-\u303f\uff00-\uffef]/u;
const ATTACHES_LEFT = /[,.;:!?)\]}%]/;
const ATTACHES_RIGHT = /[([{]/;

const lastChar = (text: string) => [...text.slice(-2)].at(-1) ?? '';
const firstChar = (text: string) => [...text.slice(0, 2)][0] ?? '';

function needsSpace(before: string, after: string): boolean {
  return !CJK.test(before) && !CJK.test(after) && !ATTACHES_LEFT.test(after) && !ATTACHES_RIGHT.test(before);
}

/**
 * Joins trimmed segment texts into one text: Chinese never gets a space inserted (between Han
 * characters, or between Han and Latin or digits), other scripts get one space between segments.
 */
export function joinSegmentTexts(texts: readonly string[]): string {
  let joined = '';
  for (const text of texts) {
    if (!text) continue;
    if (joined && needsSpace(lastChar(joined), firstChar(text))) joined += ' ';
    joined += text;
  }
  return joined;
}
