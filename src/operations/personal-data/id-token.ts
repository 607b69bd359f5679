/** The first ID-like token of a value: letters, digits and -/()#+* . */

export interface ValueSpan {
  start: number;
  end: number;
  /** The value ran on past any place it could be told to end, and this much of it was taken (fail-closed). */
  guessed?: true;
}

/**
 * OCR may split a long number with a space or two ("9005 1065", a photo's faint digits read as
 * two cells: "1  065"): a following group of digits (and letters) that ends the value or a word
 * joins the token; "123456 56岁" stays apart.
 */
const ID_TOKEN = /^[A-Za-z0-9+(#][A-Za-z0-9()\-/#*]*(?: {1,2}\d[A-Za-z0-9]*(?=\s|$|[,;，。、|]))*/u;
const HAS_DIGIT = /\d/u;

export function leadingSpaces(text: string): number {
  return /^\s*/u.exec(text)![0].length;
}

export function idTokenSpan(text: string, needsDigit: boolean): ValueSpan | undefined {
  const start = leadingSpaces(text);
  const token = ID_TOKEN.exec(text.slice(start))?.[0];
  if (!token || (needsDigit && !HAS_DIGIT.test(token))) return undefined;
  return { start, end: start + token.length };
}
