const HAN = /\p{Script=Han}/u;
const WORD_CHAR = /[\p{L}\p{N}]/u;

const lastChar = (text: string) => [...text.slice(-2)].at(-1) ?? '';
const firstChar = (text: string) => [...text.slice(0, 2)][0] ?? '';

function needsSpace(before: string, after: string): boolean {
  return WORD_CHAR.test(before) && WORD_CHAR.test(after) && !HAN.test(before) && !HAN.test(after);
}

/**
 * Joins segment texts into one text: Chinese never gets a space inserted (neither between two
 * Han characters nor between Han and Latin), other scripts get one space between words.
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
