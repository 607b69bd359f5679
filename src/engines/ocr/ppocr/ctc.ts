/**
 * Greedy CTC decoding of the recogniser's best path: at each time step the most probable class;
 * runs of the same class collapse to one character and the blank (class 0) separates characters.
 * Each character keeps the time steps it was read at, which place it along the line.
 */

export interface DecodedChar {
  char: string;
  /** First and last time step of the character's run. */
  first: number;
  last: number;
  probability: number;
}

/**
 * `best[t]` is the most probable class at step t and `probability[t]` its probability;
 * `alphabet[c - 1]` is class c's character (class 0 is the blank).
 */
export function decodeCtc(best: ArrayLike<number | bigint>, probability: ArrayLike<number>, alphabet: readonly string[]): DecodedChar[] {
  const chars: DecodedChar[] = [];
  let previous = 0;
  for (let t = 0; t < best.length; t++) {
    const c = Number(best[t]);
    const p = probability[t]!;
    if (c !== 0 && c === previous) {
      const current = chars[chars.length - 1]!;
      current.last = t;
      current.probability = Math.max(current.probability, p);
    } else if (c !== 0) {
      chars.push({ char: alphabet[c - 1] ?? '', first: t, last: t, probability: p });
    }
    previous = c;
  }
  return chars.filter((c) => c.char !== '');
}
