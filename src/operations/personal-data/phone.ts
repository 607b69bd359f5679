/**
 * Unlabelled phone numbers wherever they stand in a line:
 * - mainland mobiles (1[3-9] + 9 digits, optionally +86/0086, 3-4-4 with spaces or dashes);
 * - landlines with a 0 area code, optionally in parentheses, with an extension ("(010) 8888-6666",
 *   "021-12345678", "0755 1234 5678");
 * - 400/800 service numbers;
 * - North American numbers: "(555) 123-4567", "555-123-4567", "555.123.4567", "1-800-555-0199";
 * - international numbers after a + country code ("+1 555 123 4567", "+44 20 7946 0958"):
 *   8 to 15 digits, as E.164 allows.
 * The edges refuse digits, decimal points and slashes, so lab values, ranges, dates, blood
 * pressures and measurement series never match; separators inside a number are single spaces,
 * dashes or dots, never the "/" or "^" of units.
 */
import { mergeDetections } from './merge.js';
import { toHalfWidth } from './text.js';
import type { Detection } from './types.js';

const BEFORE = '(?<![\\d.\\/-])';
const AFTER = '(?![\\d/]|\\.\\d|-\\d)';
const MOBILE = '(?:(?:\\+|00)86[\\s-]?)?1[3-9]\\d(?:[\\s-]?\\d{4}){2}';
const LANDLINE = '(?:\\(0\\d{2,3}\\)\\s?|0\\d{2,3}[\\s-]?)[1-9]\\d{2,3}[\\s-]?\\d{4}(?:\\s?(?:-|转|ext\\.?\\s?)\\d{1,5})?';
const SERVICE = '[48]00[\\s-]?\\d{3}[\\s-]?\\d{4}';
/** Bare 3-3-4 digit groups only with the same dash or dot twice: spaces alone would take a series of values. */
const NORTH_AMERICAN = '(?:1-)?\\d{3}-\\d{3}-\\d{4}|\\d{3}\\.\\d{3}\\.\\d{4}|\\(\\d{3}\\)\\s?\\d{3}[\\s.-]\\d{4}';
const INTERNATIONAL = '\\+[1-9]\\d{0,2}(?:[\\s.-]?(?:\\(\\d{1,4}\\)|\\d{1,4})){2,5}';
const E164_DIGITS = { min: 8, max: 15 };

const NATIONAL_PHONE = new RegExp(`${BEFORE}(?:${MOBILE}|${LANDLINE}|${SERVICE}|${NORTH_AMERICAN})${AFTER}`, 'giu');
const INTERNATIONAL_PHONE = new RegExp(`${BEFORE}${INTERNATIONAL}${AFTER}`, 'gu');

function isE164Length(number: string): boolean {
  const digits = number.replace(/\D/gu, '').length;
  return digits >= E164_DIGITS.min && digits <= E164_DIGITS.max;
}

function phonesMatching(pattern: RegExp, line: string, accept: (number: string) => boolean = () => true): Detection[] {
  return [...line.matchAll(pattern)]
    .filter((match) => accept(match[0]))
    .map((match) => ({ start: match.index, end: match.index + match[0].length, kind: 'phone', rule: 'phone' }));
}

export function detectPhones(rawLine: string): Detection[] {
  const line = toHalfWidth(rawLine);
  return mergeDetections([...phonesMatching(NATIONAL_PHONE, line), ...phonesMatching(INTERNATIONAL_PHONE, line, isE164Length)]);
}
