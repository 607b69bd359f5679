/**
 * A line whose first or last character the recogniser is unsure of, read again from a crop with
 * more room round it: wider at its ends, taller above and below. A glyph at the very end of a
 * tight crop is read worse than the same glyph inside one, and the detector's box around a faint
 * line hugs its darker strokes: a rare character closing a name cell was read as its look-alike
 * (笋 as 第 at 0.51) in a crop cut close after it, and surely (0.83) with a quarter of the line's
 * thickness more margin; on photos turned 225° and tilted, where it read 第 at 0.6 and the wider
 * crop 笋 at 0.5–0.58, the crop also 30% taller read 笋 at 0.93–0.94. Only the end characters are
 * taken from the roomier reading, where it is surer of them.
 */
import type { Point, Quad } from '../plane.js';
import type { DecodedChar } from './ctc.js';
import { quadAlong } from './geometry.js';

/** An end character read less surely than this is in doubt. */
const UNSURE_END = 0.7;

/** The margin added at each end of a line read again, as a share of its thickness. */
const END_MARGIN = 0.25;
/** The margin added above and below a line read again, as a share of its thickness. */
const SIDE_MARGIN = 0.15;

/**
 * Only Chinese characters are read again: at a cell's end a roomier crop takes in the table's rules,
 * which the recogniser reads as brackets, bars, l's and 1's (a value 1.48 became L.48), and no
 * rule reads as a Chinese character.
 */
const HAN = /^\p{Script=Han}$/u;

const inDoubt = (c: DecodedChar | undefined) => c !== undefined && c.probability < UNSURE_END && HAN.test(c.char);

/** Whether the first or last of `chars` is a Chinese character read unsurely. */
export const endInDoubt = (chars: readonly DecodedChar[]): boolean => inDoubt(chars[0]) || inDoubt(chars[chars.length - 1]);

/**
 * `quad` lengthened by END_MARGIN of its thickness at each end and thickened by SIDE_MARGIN of it
 * on each side; its length over thickness `aspect` changes to match.
 */
export function roomierCut(quad: Quad, aspect: number): { quad: Quad; aspect: number } {
  // Each end moves along the line by the margin: a share of the line's length.
  const share = END_MARGIN / Math.max(aspect, 1e-6);
  const [a, b, c, d] = quadAlong(quad, -share, 1 + share);
  const away = (from: Point, to: Point): Point => ({ x: from.x + (from.x - to.x) * SIDE_MARGIN, y: from.y + (from.y - to.y) * SIDE_MARGIN });
  return { quad: [away(a, d), away(b, c), away(c, b), away(d, a)], aspect: (aspect + 2 * END_MARGIN) / (1 + 2 * SIDE_MARGIN) };
}

/**
 * `first` with its end characters in doubt (see endInDoubt) as the `roomier` reading has them,
 * where that reading is surer of them, reads Chinese characters there, and reads the rest of the
 * line alike (a roomier crop can take in a mark beside the line, or change a character inside
 * it: neither is taken).
 */
export function withEndsReadRoomier(first: readonly DecodedChar[], roomier: readonly DecodedChar[]): DecodedChar[] {
  const last = first.length - 1;
  if (roomier.length !== first.length || first.some((c, i) => i > 0 && i < last && c.char !== roomier[i]!.char)) return [...first];
  const surerThere = (c: DecodedChar, i: number) => (i === 0 || i === last) && inDoubt(c) && HAN.test(roomier[i]!.char) && roomier[i]!.probability > c.probability;
  return first.map((c, i) => (surerThere(c, i) ? { ...c, char: roomier[i]!.char, probability: roomier[i]!.probability } : c));
}
