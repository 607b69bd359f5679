/** Text helpers shared by the detectors; none of them changes a string's length, so offsets stay valid. */

const FULL_WIDTH_OFFSET = 0xfee0;

/** Full-width ASCII (ＡＢ１２：) to half-width and the ideographic space to a space, one UTF-16 unit each. */
export function toHalfWidth(text: string): string {
  return text
    .replace(/[\uff01-\uff5e]/gu, (char) => String.fromCharCode(char.charCodeAt(0) - FULL_WIDTH_OFFSET))
    .replace(/\u3000/gu, ' ');
}

/** All matches of a global pattern as [start, end) spans. */
export function matchSpans(pattern: RegExp, text: string): Array<{ start: number; end: number }> {
  return [...text.matchAll(pattern)].map((match) => ({ start: match.index, end: match.index + match[0].length }));
}
