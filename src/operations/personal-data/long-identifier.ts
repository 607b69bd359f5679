/**
 * Unlabelled long identifiers, redacted fail-closed: a run of 9 or more digits, a 7- or 8-digit
 * run that is not a YYYYMMDD date (an outpatient number whose label a photo lost, a local phone
 * number), or a letters-and-digits code of 8 or more characters with at least 6 digits
 * ("20160824XXS0025", "MRN00123456"). Decimals, ranges, dated with separators, TNM and units
 * never reach those lengths as one token.
 */
import { isYyyymmddDate } from './dates.js';
import { toHalfWidth } from './text.js';
import type { Detection } from './types.js';

const TOKEN = /(?<![A-Za-z0-9.])[A-Za-z0-9]+(?![A-Za-z0-9]|\.\d)/gu;
/**
 * Groups of 4 or more digits a space or two apart, one number that OCR cut into cells
 * ("9005  1065"); groups this long are no lab value or range, which OCR splits at 3 digits at most.
 * Cells side by side: on a page, groups a column apart are two numbers (see findLineData).
 */
const DIGIT_GROUPS = /(?<![\d.])\d{4,}(?: {1,2}\d{4,})+(?![\d.])/gu;
export const DIGIT_GROUPS_RULE = 'digit-groups';
const MIN_DIGIT_RUN = 9;
const MIN_UNDATED_RUN = 7;
const DATE_LENGTH = 8;
const MIN_CODE_LENGTH = 8;
const MIN_CODE_DIGITS = 6;

function isIdentifier(token: string): boolean {
  const digits = (token.match(/\d/gu) ?? []).length;
  if (digits === token.length) {
    return digits >= MIN_DIGIT_RUN || (digits >= MIN_UNDATED_RUN && !isYyyymmddDate(token));
  }
  return token.length >= MIN_CODE_LENGTH && digits >= MIN_CODE_DIGITS;
}

export function detectLongIdentifiers(rawLine: string): Detection[] {
  const line = toHalfWidth(rawLine);
  const tokens = [...line.matchAll(TOKEN)].filter((match) => isIdentifier(match[0]));
  const groups = [...line.matchAll(DIGIT_GROUPS)].filter((match) => match[0].replace(/ /gu, '').length >= DATE_LENGTH);
  const detection = (rule: string) => (match: RegExpMatchArray) => ({ start: match.index!, end: match.index! + match[0].length, kind: 'identifier' as const, rule });
  return [...tokens.map(detection('long-identifier')), ...groups.map(detection(DIGIT_GROUPS_RULE))];
}
