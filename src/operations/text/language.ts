export type Language = 'zh' | 'en';

const HAN_CHARACTER = /\p{Script=Han}/gu;
const LATIN_WORD = /[A-Za-z]+/g;

const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;

/**
 * Chinese when Han characters are at least as many as Latin words: a Chinese opinion full of
 * English abbreviations (EGFR, PD-L1, cT2aN2M0) still reads as Chinese, and an English one
 * naming "Dr. 张" stays English.
 */
export function detectLanguage(text: string): Language {
  const han = count(text, HAN_CHARACTER);
  return han > 0 && han >= count(text, LATIN_WORD) ? 'zh' : 'en';
}

/** Whether `text` has words and reads as `language` (digits and punctuation alone do not). */
export function isWrittenIn(text: string, language: Language): boolean {
  const han = count(text, HAN_CHARACTER);
  const words = count(text, LATIN_WORD);
  if (han === 0 && words === 0) return false;
  return detectLanguage(text) === language;
}

/** A stretch of 1–16 characters repeated ten times or more in a row: a model stuck in a loop, not prose. */
const DEGENERATE_REPEAT = /(.{1,16}?)\1{9,}/su;

export function looksDegenerate(text: string): boolean {
  return DEGENERATE_REPEAT.test(text);
}
