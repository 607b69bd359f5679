/**
 * Finds labels in a line: the longest label at each place wins, CJK labels may carry a few OCR
 * spaces between characters ("姓 名", a form's letter-spaced "姓  名"), Latin labels are
 * case-insensitive whole words (a long one with a letter misread before a colon too, "Patiet:",
 * or glued to the word before it, "AttendingPhysician:"; Pt only as written, PT being prothrombin time),
 * and a label clipped of its first character ("名") only where a line or cell begins.
 */
import { CASE_SENSITIVE_LABELS, CLIPPED_LABELS, FIELD_LABELS, NOT_LABELS, PERSONAL_LABELS } from './labels.js';
import type { PersonalKind } from './types.js';

export type LabelCategory = PersonalKind | 'field' | 'not-label';

export interface LabelMatch {
  start: number;
  end: number;
  category: LabelCategory;
  /** The label as the vocabulary writes it, e.g. '姓名'. */
  label: string;
}

const LATIN = /[A-Za-z]/u;

function escape(char: string): string {
  return char.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}

/** '姓名' → '姓\s{0,3}名', 'Sample No' → '(?<![A-Za-z])Sample\s*No(?![A-Za-z])'; a clipped label only after a line's start or a space. */
function labelPattern(label: string, clipped = false): string {
  const words = label.split(' ').map((word) =>
    [...word].map((char, index) => {
      const glue = index > 0 && !(LATIN.test(char) && LATIN.test(word[index - 1]!)) ? '\\s{0,3}' : '';
      return glue + escape(char);
    }).join(''),
  );
  const before = clipped ? '(?<=^|\\s)' : LATIN.test(label[0]!) ? '(?<![A-Za-z])' : '';
  const after = LATIN.test(label.at(-1)!) ? '(?![A-Za-z])' : '';
  return before + words.join('\\s*') + after;
}

const VOCABULARY: ReadonlyArray<{ label: string; category: LabelCategory; clipped?: boolean }> = [
  ...Object.entries(PERSONAL_LABELS).flatMap(([kind, labels]) =>
    labels.map((label) => ({ label, category: kind as PersonalKind })),
  ),
  ...Object.entries(CLIPPED_LABELS).flatMap(([kind, labels]) =>
    labels.map((label) => ({ label, category: kind as PersonalKind, clipped: true })),
  ),
  ...FIELD_LABELS.map((label) => ({ label, category: 'field' as const })),
  ...NOT_LABELS.map((label) => ({ label, category: 'not-label' as const })),
].sort((a, b) => b.label.replace(/ /gu, '').length - a.label.replace(/ /gu, '').length);

/**
 * One capture group per vocabulary entry, longest first, so the group index names the label;
 * tried only where a label's first character stands (the alternatives one by one cost a line's
 * every character otherwise).
 */
const FIRST_CHARACTERS = [...new Set(VOCABULARY.map(({ label }) => escape(label[0]!)))].join('');
const LABELS = new RegExp(`(?=[${FIRST_CHARACTERS}])(?:${VOCABULARY.map(({ label, clipped }) => `(${labelPattern(label, clipped)})`).join('|')})`, 'giu');
const WHOLE_LABEL = new RegExp(`^(?:${VOCABULARY.map(({ label, clipped }) => `(${labelPattern(label, clipped)})`).join('|')})$`, 'iu');

function entryOf(match: RegExpExecArray | RegExpMatchArray): (typeof VOCABULARY)[number] {
  return VOCABULARY[match.slice(1).findIndex((group) => group !== undefined)]!;
}

const lettersOf = (text: string) => text.replace(/[^A-Za-z]/gu, '');
/** Whether a match of a case-sensitive label has the label's case ("Pt", not "PT"). */
const hasItsCase = (match: RegExpMatchArray, label: string) => !CASE_SENSITIVE_LABELS.has(label) || lettersOf(match[0]) === lettersOf(label);

export function scanLabels(line: string): LabelMatch[] {
  const found = [...line.matchAll(LABELS)].flatMap((match) => {
    const { label, category } = entryOf(match);
    return hasItsCase(match, label) ? [{ start: match.index, end: match.index + match[0].length, label, category }] : [];
  });
  const misread = misreadLabels(line).filter((label) => !found.some((other) => other.start < label.end && label.start < other.end));
  return [...found, ...misread].sort((a, b) => a.start - b.start);
}

/** Latin labels long enough that one letter misread ("Patiet:" for Patient) still names them. */
const LONG_LATIN_LABELS = VOCABULARY.filter(({ label, category }) => /^[A-Za-z]{6,}$/u.test(label) && category !== 'field' && category !== 'not-label');
/** A Latin word marked as a label by the colon after it. */
const COLON_WORD = /(?<![A-Za-z])[A-Za-z]{5,}(?=\s?[:：])/gu;

/**
 * A capitalised word glued to the word before it (OCR dropped the space: "AttendingPhysician:"),
 * where it ends that word before a colon.
 */
const GLUED_TAIL = /(?<=[a-z])[A-Z][a-z]+$/u;

/**
 * Words before a colon that are a long Latin label with one letter misread, dropped or added, or
 * that end in one glued on after another word ("AttendingPhysician:", read so from a photo's flat
 * view, is Attending Physician).
 */
function misreadLabels(line: string): LabelMatch[] {
  return [...line.matchAll(COLON_WORD)].flatMap((match) => {
    const tail = GLUED_TAIL.exec(match[0]);
    const candidates = [{ word: match[0], start: match.index }, ...(tail ? [{ word: tail[0], start: match.index + tail.index }] : [])];
    for (const { word, start } of candidates) {
      const entry = LONG_LATIN_LABELS.find(({ label }) => withinOneEdit(word.toLowerCase(), label.toLowerCase()));
      if (entry) return [{ start, end: match.index + match[0].length, label: entry.label, category: entry.category }];
    }
    return [];
  });
}

/** Whether one letter changed, dropped or added turns `a` into `b`. */
function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1);
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** The vocabulary entry that the whole text is, if any. */
export function wholeLabel(text: string): (typeof VOCABULARY)[number] | undefined {
  const match = WHOLE_LABEL.exec(text);
  return match ? entryOf(match) : undefined;
}
