/**
 * Narrow glyphs CTC may have read too few of. Greedy decoding writes two of the same character
 * only when a blank step separates them, and a glyph one stroke wide (I, l, 1, |) is narrower
 * than a time step: "II" printed tight lands on adjacent steps and collapses into "I", or its
 * second stroke's peak stays under the blank's. Where a narrow glyph shows either sign, a window
 * of its line around it is read again stretched along its length (more time steps per glyph), and
 * only the count of that glyph at that place is taken from those readings: the rest of the line
 * stays as first read. A window, not the whole line: the doubtful glyphs are mostly the l's of long
 * English lines, and reading those whole again cost a tenth of a page's recogniser time.
 */
import type { DecodedChar } from './ctc.js';

/** Glyphs one stroke wide. */
const NARROW = new Set(['I', 'l', '1', '|', '丨', 'Ⅰ']);

/**
 * A narrow glyph read this surely is one glyph: merged strokes leave the recogniser torn between
 * the glyph and the blank it missed (two I's read as one at 0.71–0.74), and one glyph read over two
 * steps (the l of "cell") is common and sure.
 */
const SURE_GLYPH = 0.95;

/** How much longer the crops of the windows read again are than the line's own proportions make them. */
export const STRETCHES = [1.5, 2];

/**
 * A blank step this unsure, one step clear of a narrow glyph, is where a second stroke of it
 * peaked and lost to the blank (a blank on the glyph's own edge is its run's end wavering).
 */
const UNSURE_BLANK = 0.9;

/**
 * The indices of `chars` (decoded from `best`, `probability` as decodeCtc does) that are narrow
 * glyphs in doubt: read unsurely, and over more than one time step (two merged) or beside an
 * unsure blank one step clear of them (one lost).
 */
export function doubtfulNarrowGlyphs(chars: readonly DecodedChar[], best: ArrayLike<number | bigint>, probability: ArrayLike<number>): number[] {
  const blank = (t: number) => t >= 0 && t < best.length && Number(best[t]) === 0;
  const unsureBlank = (t: number) => blank(t) && probability[t]! < UNSURE_BLANK;
  return chars.flatMap((c, i) => {
    if (!NARROW.has(c.char) || c.probability >= SURE_GLYPH) return [];
    const merged = c.last > c.first;
    const lost = (blank(c.last + 1) && unsureBlank(c.last + 2)) || (blank(c.first - 1) && unsureBlank(c.first - 2));
    return merged || lost ? [i] : [];
  });
}

/** A line's characters and where they stand in its crop, `pixelsPerStep` crop pixels apart, in a crop `cropWidth` long. */
export interface ReadChars {
  chars: DecodedChar[];
  pixelsPerStep: number;
  cropWidth: number;
}

/** The crop pixel at the middle of `c`'s run. */
const centre = (c: DecodedChar, pixelsPerStep: number) => ((c.first + c.last) / 2 + 0.5) * pixelsPerStep;

/**
 * How far either side of a doubtful glyph its line is read again, in line thicknesses: the
 * recogniser reads a glyph by its neighbours. "II" printed tight read as "1" with two thicknesses
 * either side, as "II" or "I" with three (by onnxruntime's thread count), and as "II" from both
 * stretched crops with four.
 */
const WINDOW_REACH = 4;

/** A stretch of a line's crop, between two of its pixels. */
export interface Window {
  from: number;
  to: number;
}

/** A window of a line read again: its characters and where they stand in the window's own crop. */
export interface WindowReading extends ReadChars {
  window: Window;
}

/**
 * The windows of `first`'s crop to read again around its doubtful glyphs (indices of
 * `first.chars`, in order): WINDOW_REACH line thicknesses (`thickness` crop pixels each) either
 * side of each, within the crop; glyphs whose windows overlap share one.
 */
export function windowsAround(first: ReadChars, doubtful: readonly number[], thickness: number): Window[] {
  const reach = WINDOW_REACH * thickness;
  const windows: Window[] = [];
  for (const i of doubtful) {
    const at = centre(first.chars[i]!, first.pixelsPerStep);
    const window = { from: Math.max(0, at - reach), to: Math.min(first.cropWidth, at + reach) };
    const previous = windows.at(-1);
    if (previous && window.from <= previous.to) previous.to = window.to;
    else windows.push(window);
  }
  return windows;
}

/**
 * `first`'s characters with each doubtful narrow glyph (indices of `first.chars`) read as many
 * times as the most any of `stretched` (windows of the same line read from longer crops) whose
 * window holds it reads it there: between the midpoints to the glyph's neighbours. A stretched
 * reading that has anything else there, or fewer than two of the glyph, has no say.
 */
export function withNarrowGlyphsCounted(first: ReadChars, doubtful: readonly number[], stretched: readonly WindowReading[]): DecodedChar[] {
  const { pixelsPerStep } = first;
  // Each stretched reading's characters at their centres in the first reading's crop.
  const placed = stretched.map(({ chars, pixelsPerStep: steps, cropWidth, window }) => ({
    window,
    chars: chars.map((c) => ({ c, x: window.from + (centre(c, steps) * (window.to - window.from)) / cropWidth })),
  }));
  const counted = new Map<number, DecodedChar[]>();
  for (const i of doubtful) {
    const glyph = first.chars[i]!;
    const previous = first.chars[i - 1];
    const next = first.chars[i + 1];
    const at = centre(glyph, pixelsPerStep);
    const from = previous ? (centre(previous, pixelsPerStep) + at) / 2 : -Infinity;
    const to = next ? (centre(next, pixelsPerStep) + at) / 2 : Infinity;
    const readings = placed
      .filter(({ window }) => window.from <= at && at <= window.to)
      .map(({ chars }) => chars.filter(({ x }) => x > from && x < to))
      .filter((there) => there.every(({ c }) => c.char === glyph.char));
    const most = readings.reduce((a, b) => (b.length > a.length ? b : a), []);
    // Each copy stands where the stretched reading saw it, in the first reading's time steps.
    if (most.length >= 2) counted.set(i, most.map(({ c, x }) => ({ ...c, first: x / pixelsPerStep - 0.5, last: x / pixelsPerStep - 0.5 })));
  }
  return first.chars.flatMap((c, i) => counted.get(i) ?? [c]);
}
