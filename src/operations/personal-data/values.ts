/**
 * The span of a personal value at the start of the text after a label, by kind. Offsets are
 * relative to that text. `strict` is set where the label is also an ordinary word and has no
 * colon: then only a value of the exact shape of its kind counts.
 */
import { LEADING_DATE } from './dates.js';
import { EMAIL_ADDRESS } from './email.js';
import { idTokenSpan, leadingSpaces, type ValueSpan } from './id-token.js';
import { nameValueSpan } from './name-value.js';
import type { PersonalKind } from './types.js';

/** Digit groups as phone numbers are written: "(0512) 6778-0000", "+86-138-1234-5678", "138 1234 5678 转 12". */
const PHONE = /^\+?\(?\d{2,4}\)?(?:[\s-]?\d{3,4}){1,3}(?:\s?(?:转|ext\.?|-)\s?\d{1,5})?(?!\d)/u;
const EMAIL = new RegExp(`^${EMAIL_ADDRESS}`, 'u');
const ADDRESS_SHAPE = /[省市区县镇乡路街道巷弄村号]/u;
const TRAILING_PUNCTUATION = /[\s,，。;；、]+$/u;

function patternOrToken(pattern: RegExp, text: string, strict: boolean): ValueSpan | undefined {
  const start = leadingSpaces(text);
  const match = pattern.exec(text.slice(start))?.[0];
  if (match) return { start, end: start + match.length };
  return strict ? undefined : idTokenSpan(text, true);
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
      return nameValueSpan(text, strict);
    case 'birth_date':
      return patternOrToken(LEADING_DATE, text, strict);
    case 'phone':
      return patternOrToken(PHONE, text, strict);
    case 'email':
      return patternOrToken(EMAIL, text, strict);
    case 'address':
      return addressValue(text, strict);
    default:
      // Identifiers always hold a digit: after redaction OCR reads the next field's label
      // ("门诊号 ■■ 科室" as "门诊号 IERE") and that is not a value.
      return idTokenSpan(text, true);
  }
}
