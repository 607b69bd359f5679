/**
 * A line whose first or last character the recogniser is unsure of, read again from a crop with
 * wider margins at its ends. A glyph at the very end of a tight crop is read worse than the same
 * glyph inside one: a rare character closing a name cell was read as its look-alike (笋 as 第 at
 * 0.51) in a crop cut close after it, and surely (0.83) with a quarter of the line's thickness
 * more margin. Only the end characters are taken from the wider reading, where it is surer of
 * them.
 */
import type { Quad } from '../plane.js';
import type { DecodedChar } from './ctc.js';
import { quadAlong } from './geometry.js';

/** An end character read less surely than this is in doubt. */
const UNSURE_END = 0.7;

/** The margin added at each end of a line read again, as a share of its thickness. */
const END_MARGIN = 0.25;

/**
 * Only Chinese characters are read again: at a cell's end a wider crop takes in the table's rules,
 * which the recogniser reads as brackets, bars, l's and 1's (a value 1.48 became L.48), and no
 * rule reads as a Chinese character.
 */
const HAN = /^\p{Script=Han}$/u;

const inDoubt = (c: DecodedChar | undefined) => c !== undefined && c.probability < UNSURE_END && HAN.test(c.char);

/** Whether the first or last of `chars` is a Chinese character read unsurely. */
export const endInDoubt = (chars: readonly DecodedChar[]): boolean => inDoubt(chars[0]) || inDoubt(chars[chars.length - 1]);

/** `quad` lengthened by END_MARGIN of its thickness at each end; its length over thickness `aspect` grows to match. */
export function widenedAtEnds(quad: Quad, aspect: number): { quad: Quad; aspect: number } {
  // Each end moves along the line by the margin: a share of the line's length.
  const share = END_MARGIN / Math.max(aspect, 1e-6);
  return { quad: quadAlong(quad, -share, 1 + share), aspect: aspect + 2 * END_MARGIN };
}

/**
 * `first` with its end characters in doubt (see endInDoubt) as the `wider` reading has them, where
 * that reading is surer of them, reads Chinese characters there, and reads the rest of the line
 * alike (a wider crop can take in a mark beside the line, or change a character inside it:
 * neither is taken).
 */
export function withEndsReadWider(first: readonly DecodedChar[], wider: readonly DecodedChar[]): DecodedChar[] {
  const last = first.length - 1;
  if (wider.length !== first.length || first.some((c, i) => i > 0 && i < last && c.char !== wider[i]!.char)) return [...first];
  const surerThere = (c: DecodedChar, i: number) => (i === 0 || i === last) && inDoubt(c) && HAN.test(wider[i]!.char) && wider[i]!.probability > c.probability;
  return first.map((c, i) => (surerThere(c, i) ? { ...c, char: wider[i]!.char, probability: wider[i]!.probability } : c));
}
