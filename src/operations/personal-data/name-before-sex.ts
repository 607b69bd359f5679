/**
 * A name whose label was lost: on a form's patient row the name's cell comes right before the
 * 性别 field ("孟丁  性别男", a photo whose faint 姓名 was not read). A cell directly before 性别
 * that ends in a plausible Chinese name (a common surname and one or two more characters), after
 * at most the remnant of its label ("多孟丁", 名 misread), holds that name.
 */
import { surnameLength } from './surnames.js';
import { toHalfWidth } from './text.js';
import type { Detection } from './types.js';

/** A cell (a line's start, or after two spaces) of Han characters, then the 性别 field. */
const CELL_BEFORE_SEX = /(?<=^|\s{2})(\p{Script=Han}{2,5})(?=\s{1,3}性\s?别)/gu;
const MAX_GIVEN_NAME = 2;
/** Characters of a label's remnant that may stand before the name in its cell. */
const MAX_REMNANT = 1;

function isPlausibleName(text: string): boolean {
  const surname = surnameLength(text);
  return surname > 0 && text.length - surname >= 1 && text.length - surname <= MAX_GIVEN_NAME;
}

/** Where in the cell its name begins: the cell itself, else after a remnant of a label; -1 if it holds none. */
function nameStart(cell: string): number {
  for (let remnant = 0; remnant <= MAX_REMNANT && remnant < cell.length - 1; remnant++) if (isPlausibleName(cell.slice(remnant))) return remnant;
  return -1;
}

export function detectNameBeforeSex(rawLine: string): Detection[] {
  const line = toHalfWidth(rawLine);
  return [...line.matchAll(CELL_BEFORE_SEX)].flatMap((match) => {
    const start = nameStart(match[1]!);
    return start < 0 ? [] : [{ start: match.index + start, end: match.index + match[1]!.length, kind: 'name' as const, rule: 'name-before-sex' }];
  });
}
