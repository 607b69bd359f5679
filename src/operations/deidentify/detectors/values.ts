/**
 * The span of a personal value at the start of the text after a label, by kind. Offsets are
 * relative to that text. `strict` is set where the label is also an ordinary word and has no
 * colon: then only a value of the exact shape of its kind counts.
 */
import { LEADING_DATE } from './dates.js';
import { startsWithSurname } from './surnames.js';
import type { PersonalKind } from './types.js';

export interface ValueSpan {
  start: number;
  end: number;
}

const HAN_RUN = /^\p{Script=Han}[\p{Script=Han}·•]*/u;
const MAX_HAN_NAME = 4;
const MAX_MINORITY_NAME = 16;
const TITLE = /^(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s*)?/u;
const LATIN_NAME = /^[A-Z][A-Za-z'’-]*(?:[ ,]\s?[A-Z][A-Za-z'’-]*){0,3}/u;
/** An ID: letters, digits and -/()# ; OCR may split a long number with single spaces ("9005 1065"). */
const ID_TOKEN = /^[A-Za-z0-9+(#][A-Za-z0-9()\-/#*]*(?: \d[A-Za-z0-9]*(?![-/.:\d]))*/u;
const EMAIL = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/u;
const ADDRESS_SHAPE = /[省市区县镇乡路街道巷弄村号]/u;
const TRAILING_PUNCTUATION = /[\s,，。;；、]+$/u;
const HAS_DIGIT = /\d/u;

function leadingSpaces(text: string): number {
  return /^\s*/u.exec(text)![0].length;
}

function span(offset: number, match: RegExpExecArray | null): ValueSpan | undefined {
  return match && match[0] ? { start: offset, end: offset + match[0].length } : undefined;
}

function hanName(rest: string, offset: number, strict: boolean): ValueSpan | undefined {
  const run = HAN_RUN.exec(rest)![0];
  if (run.includes('·') || run.includes('•')) return { start: offset, end: offset + Math.min(run.length, MAX_MINORITY_NAME) };
  if (strict && (run.length < 2 || run.length > MAX_HAN_NAME || !startsWithSurname(run))) return undefined;
  return { start: offset, end: offset + Math.min(run.length, MAX_HAN_NAME) };
}

function nameValue(text: string, strict: boolean): ValueSpan | undefined {
  const offset = leadingSpaces(text);
  const rest = text.slice(offset);
  if (HAN_RUN.test(rest)) return hanName(rest, offset, strict);
  const title = TITLE.exec(rest)![0].length;
  const latin = span(offset + title, LATIN_NAME.exec(rest.slice(title)));
  if (latin) return latin;
  return tokenValue(text, true);
}

function tokenValue(text: string, needsDigit: boolean): ValueSpan | undefined {
  const offset = leadingSpaces(text);
  const match = ID_TOKEN.exec(text.slice(offset));
  if (!match || (needsDigit && !HAS_DIGIT.test(match[0]))) return undefined;
  return span(offset, match);
}

function patternOrToken(pattern: RegExp, text: string, strict: boolean): ValueSpan | undefined {
  const offset = leadingSpaces(text);
  const match = span(offset, pattern.exec(text.slice(offset)));
  return match ?? (strict ? undefined : tokenValue(text, true));
}

function addressValue(text: string, strict: boolean): ValueSpan | undefined {
  const start = leadingSpaces(text);
  const end = text.replace(TRAILING_PUNCTUATION, '').length;
  if (end <= start || (strict && !ADDRESS_SHAPE.test(text))) return undefined;
  return { start, end };
}

export function valueSpan(kind: PersonalKind, text: string, strict: boolean): ValueSpan | undefined {
  switch (kind) {
    case 'name':
      return nameValue(text, strict);
    case 'birth_date':
      return patternOrToken(LEADING_DATE, text, strict);
    case 'email':
      return patternOrToken(EMAIL, text, strict);
    case 'address':
      return addressValue(text, strict);
    default:
      return tokenValue(text, strict);
  }
}
