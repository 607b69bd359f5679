/**
 * The span of a name after a person label: a Chinese name is its first 2–4 Han characters (a
 * longer run when joined by ·, as minority names are; one character if that is all there is;
 * "张 三" when OCR kept spaces between characters), an English name up to 4 capitalised words
 * (a title such as Dr. stays visible), else a number or code that is not a date ("检验者:29028").
 */
import { LEADING_DATE } from './dates.js';
import { idTokenSpan, leadingSpaces, type ValueSpan } from './id-token.js';
import { startsWithSurname } from './surnames.js';

const COMPACT_HAN = /^\p{Script=Han}(?:[·•・]?\p{Script=Han})*/u;
const SPACED_HAN = /^\p{Script=Han}(?: \p{Script=Han}(?!\p{Script=Han})){1,3}/u;
const MINORITY_JOINER = /[·•・]/u;
const MAX_HAN_NAME = 4;
const MAX_MINORITY_NAME = 16;
/** Values a form puts in the name field that are no name. */
const NOT_NAMES = new Set(['男', '女', '无', '未知', '不详', '空']);
const TITLE = /^(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s*)?/u;
const LATIN_NAME = /^[A-Z][A-Za-z'’-]*(?:[ ,]\s?[A-Z][A-Za-z'’-]*){0,3}/u;

function hanNameLength(rest: string): number {
  const compact = COMPACT_HAN.exec(rest)![0];
  if (MINORITY_JOINER.test(compact)) return Math.min(compact.length, MAX_MINORITY_NAME);
  if (compact.length === 1) return SPACED_HAN.exec(rest)?.[0].length ?? 1;
  return Math.min(compact.length, MAX_HAN_NAME);
}

function hanName(rest: string, strict: boolean): number | undefined {
  const compact = COMPACT_HAN.exec(rest)![0];
  if (NOT_NAMES.has(compact)) return undefined;
  const length = hanNameLength(rest);
  const characters = rest.slice(0, length).replace(/\s/gu, '');
  const exactShape = characters.length >= 2 && compact.length <= MAX_HAN_NAME && startsWithSurname(characters);
  return strict && !exactShape ? undefined : length;
}

function isDate(text: string, span: ValueSpan): boolean {
  return LEADING_DATE.exec(text.slice(span.start))?.[0].length === span.end - span.start;
}

export function nameValueSpan(text: string, strict: boolean): ValueSpan | undefined {
  const start = leadingSpaces(text);
  const rest = text.slice(start);
  if (COMPACT_HAN.test(rest)) {
    const length = hanName(rest, strict);
    return length === undefined ? undefined : { start, end: start + length };
  }
  const title = TITLE.exec(rest)![0].length;
  const latin = LATIN_NAME.exec(rest.slice(title))?.[0];
  if (latin) return { start: start + title, end: start + title + latin.length };
  const token = idTokenSpan(text, true);
  return token && !isDate(text, token) ? token : undefined;
}
