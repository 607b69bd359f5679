/**
 * The span of a name after a person label: a Chinese name is its first 2–4 Han characters (a
 * longer run when joined by ·, as minority names are; one character if that is all there is;
 * "张 三" when OCR kept spaces between characters), an English name up to 4 capitalised words
 * (a title such as Dr. and degrees such as MD stay visible; two lower-case words after a colon
 * when nothing else follows), else a number or code that is not a date ("检验者:29028"). In a
 * longer Han run the name ends before a word that often follows a name in free text
 * ("患者王建国因咳嗽入院" → 王建国); where no such word tells it apart, its first 4 characters
 * are taken as a guess (see ValueSpan.guessed): a run-on after a name label may be the name glued
 * to what follows, or another cell read on its row (a title beside 姓名 on a tilted photo).
 */
import { LEADING_DATE } from './dates.js';
import { idTokenSpan, leadingSpaces, type ValueSpan } from './id-token.js';
import { startsWithSurname, surnameLength } from './surnames.js';

const COMPACT_HAN = /^\p{Script=Han}(?:[·•・]?\p{Script=Han})*/u;
const SPACED_HAN = /^\p{Script=Han}(?: \p{Script=Han}(?!\p{Script=Han})){1,3}/u;
const MINORITY_JOINER = /[·•・]/u;
const MAX_HAN_NAME = 4;
const MAX_MINORITY_NAME = 16;
/** Values a form puts in the name field that are no name. */
const NOT_NAMES = new Set(['男', '女', '男性', '女性', '无', '未知', '不详', '空', '本人']);
const TITLE = /^(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s*)?/u;
const LATIN_WORD = "(?!(?:MD|PhD|RN|DO|MBBS)\\b)[A-Z][A-Za-z'’-]*";
/** Initials before a word of a name ("A. Patel", "John R. Smith"). */
const INITIALS = '(?:[A-Z]\\.\\s?){0,2}';
const LATIN_NAME = new RegExp(`^${INITIALS}${LATIN_WORD}(?:[ ,]\\s?${INITIALS}${LATIN_WORD}){0,3}`, 'u');
/** A lower-case name ("name: zhang san") only when it is all there is before the next label. */
const LOWER_CASE_NAME = /^[a-z][a-z'’-]*(?: [a-z][a-z'’-]*)?(?=\s*$)/u;
/** Words that often follow a name in free text; the two-character ones are tried first ("郑丽代诉", not "郑丽代" before 诉). */
const WORDS_AFTER_NAME = ['代诉', '陪同', '签字'];
const CHARACTERS_AFTER_NAME = [...'因于在行以主诉自经被入今昨由术为是系的签及和'];
const MIN_HAN_NAME = 2;
const MAX_GIVEN_NAME = 2;

const isFollowedBy = (run: readonly string[], count: number, word: string) => run.slice(count, count + word.length).join('') === word;

/** The longest name (4, 3 or 2 characters) that a free-text word follows; undefined if none does. */
function nameBeforeFreeText(run: readonly string[]): number | undefined {
  for (const words of [WORDS_AFTER_NAME, CHARACTERS_AFTER_NAME]) {
    for (let count = Math.min(MAX_HAN_NAME, run.length - 1); count >= MIN_HAN_NAME; count--) {
      if (words.some((word) => isFollowedBy(run, count, word))) return count;
    }
  }
  return undefined;
}

/** Characters of the name in a run of Han characters without joiners; undefined where no name can be told apart. */
function nameInRun(run: readonly string[]): number | undefined {
  if (run.length < MAX_HAN_NAME) return run.length;
  return nameBeforeFreeText(run) ?? (run.length === MAX_HAN_NAME ? run.length : undefined);
}

/** Characters are counted as code points: rare name characters lie outside the BMP. */
function utf16Length(characters: readonly string[], count: number): number {
  return characters.slice(0, count).join('').length;
}

/**
 * After a label that is also an ordinary word, a name is a surname and one or two characters:
 * "患者自述", "患者高血压10年" and "父亲因肺癌去世" name no one.
 */
function isPlausibleName(run: string, count: number): boolean {
  const surname = surnameLength(run);
  return surname > 0 && count - surname >= 1 && count - surname <= MAX_GIVEN_NAME;
}

/** A name's length in a value (UTF-16), and whether it was guessed (see ValueSpan). */
interface NameLength {
  length: number;
  guessed?: true;
}

function hanName(rest: string, strict: boolean): NameLength | undefined {
  const compact = COMPACT_HAN.exec(rest)![0];
  if (NOT_NAMES.has(compact)) return undefined;
  const characters = [...compact];
  if (MINORITY_JOINER.test(compact)) return { length: utf16Length(characters, MAX_MINORITY_NAME) };
  if (characters.length === 1) {
    const name = SPACED_HAN.exec(rest)?.[0] ?? compact;
    return strict && !startsWithSurname(name) ? undefined : { length: name.length };
  }
  const count = nameInRun(characters);
  if (count !== undefined && (!strict || isPlausibleName(compact, count))) return { length: utf16Length(characters, count) };
  return strict ? undefined : { length: utf16Length(characters, MAX_HAN_NAME), guessed: true };
}

function isDate(text: string, span: ValueSpan): boolean {
  return LEADING_DATE.exec(text.slice(span.start))?.[0].length === span.end - span.start;
}

export function nameValueSpan(text: string, strict: boolean): ValueSpan | undefined {
  const start = leadingSpaces(text);
  const rest = text.slice(start);
  if (COMPACT_HAN.test(rest)) {
    const name = hanName(rest, strict);
    return name && { start, end: start + name.length, ...(name.guessed ? { guessed: name.guessed } : {}) };
  }
  const title = TITLE.exec(rest)![0].length;
  const latin = LATIN_NAME.exec(rest.slice(title))?.[0];
  if (latin) return { start: start + title, end: start + title + latin.length };
  if (strict) return undefined;
  const lowerCase = LOWER_CASE_NAME.exec(rest)?.[0];
  if (lowerCase) return { start, end: start + lowerCase.length };
  const token = idTokenSpan(text, true);
  return token && !isDate(text, token) ? token : undefined;
}
