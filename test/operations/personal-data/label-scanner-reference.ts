/**
 * The label scanner written as one regular expression of the whole vocabulary, alternatives
 * longest first: the reference the tree's matches are checked against.
 */
import { CASE_SENSITIVE_LABELS } from '../../../src/operations/personal-data/labels.js';
import { VOCABULARY, type LabelMatch } from '../../../src/operations/personal-data/label-scanner.js';

const LATIN = /[A-Za-z]/u;
const escape = (char: string) => char.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

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

const FIRST_CHARACTERS = [...new Set(VOCABULARY.map(({ label }) => escape(label[0]!)))].join('');
const ALTERNATIVES = VOCABULARY.map(({ label, clipped }) => `(${labelPattern(label, clipped)})`).join('|');
const LABELS = new RegExp(`(?=[${FIRST_CHARACTERS}])(?:${ALTERNATIVES})`, 'giu');
const WHOLE_LABEL = new RegExp(`^(?:${ALTERNATIVES})$`, 'iu');

const entryOf = (match: RegExpMatchArray) => VOCABULARY[match.slice(1).findIndex((group) => group !== undefined)]!;
const lettersOf = (text: string) => text.replace(/[^A-Za-z]/gu, '');

export function referenceVocabularyLabels(line: string): LabelMatch[] {
  return [...line.matchAll(LABELS)].flatMap((match) => {
    const { label, category } = entryOf(match);
    const ownCase = !CASE_SENSITIVE_LABELS.has(label) || lettersOf(match[0]) === lettersOf(label);
    return ownCase ? [{ start: match.index, end: match.index + match[0].length, label, category }] : [];
  });
}

export function referenceWholeLabel(text: string): (typeof VOCABULARY)[number] | undefined {
  const match = WHOLE_LABEL.exec(text);
  return match ? entryOf(match) : undefined;
}
