/** Error rates of a transcript against its reference: CER for Chinese, WER for English. */

/** Levenshtein distance between two token sequences (substitutions, insertions, deletions). */
export function editDistance<T>(reference: readonly T[], hypothesis: readonly T[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const current = [i];
    for (let j = 1; j <= hypothesis.length; j++) {
      const substitution = previous[j - 1]! + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1);
      current[j] = Math.min(substitution, previous[j]! + 1, current[j - 1]! + 1);
    }
    previous = current;
  }
  return previous[hypothesis.length]!;
}

/** Characters that count: letters and digits, lower-cased; punctuation and spaces never count. */
export function chineseChars(text: string): string[] {
  return [...text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '')];
}

export function englishWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

export interface ErrorCount {
  edits: number;
  referenceLength: number;
}

export function countErrors(language: 'zh' | 'en', reference: string, hypothesis: string): ErrorCount {
  const tokens = language === 'zh' ? chineseChars : englishWords;
  const ref = tokens(reference);
  return { edits: editDistance(ref, tokens(hypothesis)), referenceLength: ref.length };
}

/** Total edits over total reference length (the corpus-level rate, not a mean of rates). */
export function errorRate(counts: readonly ErrorCount[]): number {
  const length = counts.reduce((sum, count) => sum + count.referenceLength, 0);
  return length === 0 ? 0 : counts.reduce((sum, count) => sum + count.edits, 0) / length;
}
