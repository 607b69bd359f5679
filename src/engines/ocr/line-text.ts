/**
 * A line's text from its recognised words, as every reader and a PDF's text layer join them: one
 * space between words, except between CJK characters (tesseract puts a space between every
 * Chinese character); and where characters sit in a box that holds several.
 */
import type { OcrWord } from '../types.js';

const CJK = '\\p{Script=Han}\\u3000-\\u303f\\uff00-\\uffef';
const PUNCTUATION = ':;,.!?()';
const SPACE_BETWEEN_CJK = new RegExp(
  `(?<=[${CJK}])[ \\t]+(?=[${CJK}${PUNCTUATION}])|(?<=[${CJK}${PUNCTUATION}])[ \\t]+(?=[${CJK}])`,
  'gu',
);

/**
 * Drops spaces between two CJK characters, and between CJK and punctuation ("姓名 : 张三" →
 * "姓名:张三"); keeps those between CJK and digits or Latin words, which separate fields.
 */
export function removeCjkSpaces(text: string): string {
  return text.replace(SPACE_BETWEEN_CJK, '');
}

/**
 * Relative width of a character as documents set it: CJK and full-width forms take about twice
 * a Latin letter or digit, a space about half. Used to find where characters sit inside a box
 * that holds several ("姓名：张三" splits its box about 8:4:4 between label, colon and name).
 */
const WIDE = new RegExp(`^[${CJK}]$`, 'u');

function characterWidth(char: string): number {
  if (/^\s$/u.test(char)) return 0.5;
  return WIDE.test(char) ? 2 : 1;
}

/** The horizontal part of a box that UTF-16 characters [from, to) of `text` take. */
export function boxOfChars(text: string, box: OcrWord['box'], from: number, to: number): OcrWord['box'] {
  // Per UTF-16 unit: a surrogate pair's second unit adds nothing.
  const widths = Array.from({ length: text.length }, (_, index) => {
    const code = text.charCodeAt(index);
    return code >= 0xdc00 && code <= 0xdfff ? 0 : characterWidth(String.fromCodePoint(text.codePointAt(index)!));
  });
  const sum = (values: number[]) => values.reduce((total, width) => total + width, 0);
  const total = sum(widths) || 1;
  const before = sum(widths.slice(0, from));
  const inside = sum(widths.slice(from, to));
  const span = box.x1 - box.x0;
  return { x0: box.x0 + (span * before) / total, y0: box.y0, x1: box.x0 + (span * (before + inside)) / total, y1: box.y1 };
}

export function joinLine(words: readonly string[]): string {
  return removeCjkSpaces(words.map((word) => word.trim()).filter(Boolean).join(' '));
}
