/**
 * China passport numbers (E/G/D/S/P + 8 digits, or E + letter + 7 digits), only after 护照 or
 * Passport on the same line: elsewhere such a code may be anything.
 */
import { toHalfWidth } from './text.js';
import type { Detection } from './types.js';

const MENTION = /护\s?照|passport/iu;
const PASSPORT = /(?<![A-Za-z0-9])(?:[EGDSP]\d{8}|E[A-Z]\d{7})(?![A-Za-z0-9])/gu;

export function detectPassports(rawLine: string): Detection[] {
  const line = toHalfWidth(rawLine);
  const mention = MENTION.exec(line);
  if (!mention) return [];
  return [...line.matchAll(PASSPORT)]
    .filter((match) => match.index >= mention.index + mention[0].length)
    .map((match) => ({ start: match.index, end: match.index + match[0].length, kind: 'passport', rule: 'passport' }));
}
