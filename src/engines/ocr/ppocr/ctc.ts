/**
 * Greedy CTC decoding of the recogniser's output: at each time step the most probable class; runs
 * of the same class collapse to one character and the blank (class 0) separates characters.
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
 * `scores` holds T × C probabilities for one line (row t, class c); `alphabet[c - 1]` is class
 * c's character (class 0 is the blank).
 */
export function decodeCtc(scores: Float32Array, steps: number, classes: number, alphabet: readonly string[]): DecodedChar[] {
  const chars: DecodedChar[] = [];
  let previous = 0;
  for (let t = 0; t < steps; t++) {
    let best = 0;
    let bestScore = -Infinity;
    const row = t * classes;
    for (let c = 0; c < classes; c++) {
      const score = scores[row + c]!;
      if (score > bestScore) {
        bestScore = score;
        best = c;
      }
    }
    if (best !== 0 && best === previous) {
      const current = chars[chars.length - 1]!;
      current.last = t;
      current.probability = Math.max(current.probability, bestScore);
    } else if (best !== 0) {
      chars.push({ char: alphabet[best - 1] ?? '', first: t, last: t, probability: bestScore });
    }
    previous = best;
  }
  return chars.filter((c) => c.char !== '');
}
