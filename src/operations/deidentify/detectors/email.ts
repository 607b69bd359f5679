/** E-mail addresses anywhere on the line: local@domain.tld. */
import { matchSpans, toHalfWidth } from './text.js';
import type { Detection } from './types.js';

const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z])/gu;

export function detectEmails(rawLine: string): Detection[] {
  return matchSpans(EMAIL, toHalfWidth(rawLine)).map((found) => ({ ...found, kind: 'email', rule: 'email' }));
}
