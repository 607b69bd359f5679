/**
 * Resident identity numbers (GB 11643): 17 digits and a check digit (0-9 or X), or the old
 * 15-digit form with a YYMMDD birth date. In running text an 18-character number with a valid
 * check digit is a resident ID; with a wrong one it is still redacted as an identifier, since
 * OCR may have misread one digit. O/o read for 0 and I/l for 1 are read back as digits.
 */
import { isValidCalendarDate } from './dates.js';
import { toHalfWidth } from './text.js';
import type { Detection } from './types.js';

const WEIGHTS = Array.from({ length: 17 }, (_, index) => 2 ** (17 - index) % 11);
/** (12 − sum mod 11) mod 11 with 10 written X, as a table indexed by sum mod 11. */
const CHECK_CHARS = '10X98765432';
const CANDIDATE = /(?<![A-Za-z0-9])[0-9OoIl]{17}[0-9XxOoIl](?![A-Za-z0-9])|(?<![A-Za-z0-9])\d{15}(?![A-Za-z0-9])/gu;
const MIN_TRUE_DIGITS = 15;

export function residentIdCheckChar(first17: string): string {
  const sum = [...first17].reduce((total, digit, index) => total + Number(digit) * WEIGHTS[index]!, 0);
  return CHECK_CHARS[sum % 11]!;
}

function isValidOldForm(id: string): boolean {
  if (!/^\d{15}$/u.test(id)) return false;
  return isValidCalendarDate(1900 + Number(id.slice(6, 8)), Number(id.slice(8, 10)), Number(id.slice(10, 12)));
}

export function isValidResidentId(id: string): boolean {
  if (/^\d{17}[\dXx]$/u.test(id)) return residentIdCheckChar(id.slice(0, 17)) === id[17]!.toUpperCase();
  return isValidOldForm(id);
}

function readAsDigits(candidate: string): string {
  return candidate.replace(/[Oo]/gu, '0').replace(/[Il]/gu, '1');
}

export function detectResidentIds(rawLine: string): Detection[] {
  const line = toHalfWidth(rawLine);
  return [...line.matchAll(CANDIDATE)].flatMap((match) => {
    const candidate = match[0];
    if ((candidate.match(/\d/gu) ?? []).length < MIN_TRUE_DIGITS) return [];
    const valid = isValidResidentId(readAsDigits(candidate));
    if (candidate.length === 15 && !valid) return [];
    const kind = valid ? 'resident_id' : 'identifier';
    return [{ start: match.index, end: match.index + candidate.length, kind, rule: 'resident-id' } as const];
  });
}
