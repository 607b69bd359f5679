/** E-mail addresses anywhere on the line: local@domain.tld. */
import { matchSpans, toHalfWidth } from './text.js';
import type { Detection } from './types.js';

export const EMAIL_ADDRESS = '[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}';
const EMAIL = new RegExp(`(?<![A-Za-z0-9._%+-])${EMAIL_ADDRESS}(?![A-Za-z])`, 'gu');

export function detectEmails(rawLine: string): Detection[] {
  return matchSpans(EMAIL, toHalfWidth(rawLine)).map((found) => ({ ...found, kind: 'email', rule: 'email' }));
}
