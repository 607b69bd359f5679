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

/** Whitespace as a unicode regular expression's \s takes it. */
function isWhitespace(code: number): boolean {
  if (code <= 0xff) return code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0;
  return code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

/**
 * A character (by its code) as a case-insensitive unicode match compares it: the vocabulary's only
 * cased characters are ASCII letters, and besides their capitals only the Kelvin sign and the long
 * s fold onto them. NaN (past either end of a string) stays NaN.
 */
function folded(code: number): number {
  if (code >= 0x41 && code <= 0x5a) return code + 0x20;
  if (code === 0x212a) return 0x6b;
  return code === 0x17f ? 0x73 : code;
}

/** A letter A-Z in either case, the way a case-insensitive match sees one. */
const isLetter = (code: number) => folded(code) >= 0x61 && folded(code) <= 0x7a;

/** How much whitespace may stand before a label's character: none (inside a Latin word), up to three (CJK, OCR spacing), or any (between words). */
type Gap = 0 | 3 | typeof Number.POSITIVE_INFINITY;

interface Step {
  /** The character's code, folded. */
  code: number;
  gap: Gap;
}

/** '姓名' → 姓, up to three spaces, 名; 'Sample No' → Sample as written, any spaces, No. Characters folded. */
function stepsOf(label: string): Step[] {
  return label.split(' ').flatMap((word, wordIndex) =>
    [...word].map((char, index) => {
      const gap: Gap = index > 0 ? (LATIN.test(char) && LATIN.test(word[index - 1]!) ? 0 : 3) : wordIndex > 0 ? Number.POSITIVE_INFINITY : 0;
      return { code: folded(char.charCodeAt(0)), gap };
    }),
  );
}

/** Every label, longest first (ties in the order labels.ts gives them). */
export const VOCABULARY: ReadonlyArray<{ label: string; category: LabelCategory; clipped?: boolean }> = [
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
 * The vocabulary as a tree of steps: from each node, the next character by the gap allowed before
 * it; each node knows the entries (by their place in VOCABULARY) whose last step it is.
 */
interface LabelNode {
  next: Array<{ gap: Gap; byCode: Map<number, LabelNode> }>;
  ends: number[];
}

function labelTree(): LabelNode {
  const root: LabelNode = { next: [], ends: [] };
  VOCABULARY.forEach(({ label }, index) => {
    let node = root;
    for (const { code, gap } of stepsOf(label)) {
      let branch = node.next.find((next) => next.gap === gap);
      if (!branch) node.next.push((branch = { gap, byCode: new Map() }));
      let child = branch.byCode.get(code);
      if (!child) branch.byCode.set(code, (child = { next: [], ends: [] }));
      node = child;
    }
    node.ends.push(index);
  });
  return root;
}

/**
 * Labels are matched by walking this tree rather than by one regular expression of the whole
 * vocabulary: V8 drops a regular expression's compiled code when a full garbage collection finds
 * it idle, and compiling some 300 alternatives again holds the event loop for tens of milliseconds,
 * once for one-byte and once for two-byte text.
 */
const TREE = labelTree();
/** The tree's nodes after a label's first character, by that character's folded code. */
const FIRST_STEPS = TREE.next[0]!.byCode;

/** Whether the entry's boundaries hold around text[start, end): a Latin label is a whole word, a clipped one starts a line or follows a space. */
function standsAlone(entry: (typeof VOCABULARY)[number], text: string, start: number, end: number): boolean {
  const { label, clipped } = entry;
  if (clipped && start > 0 && !isWhitespace(text.charCodeAt(start - 1))) return false;
  if (!clipped && LATIN.test(label[0]!) && isLetter(text.charCodeAt(start - 1))) return false;
  return !(LATIN.test(label.at(-1)!) && isLetter(text.charCodeAt(end)));
}

/** Where the whitespace run starting at `at` ends. */
function afterWhitespace(text: string, at: number): number {
  let end = at;
  while (end < text.length && isWhitespace(text.charCodeAt(end))) end++;
  return end;
}

/**
 * The first entry in vocabulary order (the longest label) that matches text from `start`, and
 * where its match ends, as the first of the vocabulary's alternatives to match there would: every
 * step's gap skips the whole whitespace run before it or fails (a label's character is never
 * whitespace). Only matches that end where `endsWell` allows count.
 */
function firstMatchAt(text: string, start: number, endsWell: (end: number) => boolean = () => true): { index: number; end: number } | undefined {
  const first = FIRST_STEPS.get(folded(text.charCodeAt(start)));
  if (!first) return undefined;
  let best: { index: number; end: number } | undefined;
  const walk = (node: LabelNode, at: number) => {
    for (const index of node.ends) {
      if ((!best || index < best.index) && endsWell(at) && standsAlone(VOCABULARY[index]!, text, start, at)) best = { index, end: at };
    }
    if (at >= text.length || node.next.length === 0) return;
    const skipped = afterWhitespace(text, at);
    const code = folded(text.charCodeAt(skipped));
    for (const { gap, byCode } of node.next) {
      const child = skipped - at <= gap ? byCode.get(code) : undefined;
      if (child) walk(child, skipped + 1);
    }
  };
  walk(first, start + 1);
  return best;
}

const lettersOf = (text: string) => text.replace(/[^A-Za-z]/gu, '');
/** Whether a match of a case-sensitive label has the label's case ("Pt", not "PT"). */
const hasItsCase = (matched: string, label: string) => !CASE_SENSITIVE_LABELS.has(label) || lettersOf(matched) === lettersOf(label);

/** Every label of the vocabulary in the line, left to right, the longest at each place; the line is read on after each. */
export function vocabularyLabels(line: string): LabelMatch[] {
  const found: LabelMatch[] = [];
  for (let start = 0; start < line.length; ) {
    const match = firstMatchAt(line, start);
    if (!match) {
      start++;
      continue;
    }
    const { label, category } = VOCABULARY[match.index]!;
    if (hasItsCase(line.slice(start, match.end), label)) found.push({ start, end: match.end, label, category });
    start = match.end;
  }
  return found;
}

export function scanLabels(line: string): LabelMatch[] {
  const found = vocabularyLabels(line);
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

/** The vocabulary entry that the whole text is, if any: the first in vocabulary order whose match spans it. */
export function wholeLabel(text: string): (typeof VOCABULARY)[number] | undefined {
  const match = firstMatchAt(text, 0, (end) => end === text.length);
  return match ? VOCABULARY[match.index] : undefined;
}
