/**
 * Unlabelled phone numbers: mainland mobiles (1[3-9] + 9 digits, optionally +86/0086, 3-4-4
 * with spaces or dashes), landlines with a 0 area code (optionally in parentheses, with an
 * extension) and 400/800 service numbers. The edges refuse digits, decimal points and slashes,
 * so lab values, ranges and dates never match.
 */
import { matchSpans, toHalfWidth } from './text.js';
import type { Detection } from './types.js';

const BEFORE = '(?<![\\d.\\/-])';
const AFTER = '(?![\\d/]|\\.\\d|-\\d)';
const MOBILE = `(?:(?:\\+|00)86[\\s-]?)?1[3-9]\\d(?:[\\s-]?\\d{4}){2}`;
const LANDLINE = `(?:\\(0\\d{2,3}\\)\\s?|0\\d{2,3}[\\s-]?)[2-9]\\d{2,3}[\\s-]?\\d{4}(?:\\s?(?:-|转|ext\\.?\\s?)\\d{1,5})?`;
const SERVICE = `[48]00[\\s-]?\\d{3}[\\s-]?\\d{4}`;
const PHONE = new RegExp(`${BEFORE}(?:${MOBILE}|${LANDLINE}|${SERVICE})${AFTER}`, 'giu');

export function detectPhones(rawLine: string): Detection[] {
  return matchSpans(PHONE, toHalfWidth(rawLine)).map((found) => ({ ...found, kind: 'phone', rule: 'phone' }));
}
