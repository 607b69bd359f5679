/**
 * Where a label's value stands on the page when it is not after the label on its line, and the
 * boxes of a line's characters. The de-identification paints what these find; case-ocr reads it.
 * - right of the label on its row: OCR often cuts a row into separate lines, so the first group
 *   of words to the label's right on the same row, from any line;
 * - below the label, in tables: the cell of the next row whose centre lies in the label's column
 *   (the column runs to the next word of the header row).
 */
import { boxOfChars, type Quad } from '../../engines/ocr/index.js';
import type { Box, OcrPage, OcrWord } from '../../engines/types.js';
import type { PageLine } from './lines.js';

/** Words closer than this many line heights belong to one value ("孟 丁", "9005 1065"). */
const VALUE_GAP_HEIGHTS = 1.5;
/** A blank this many line heights wide between two words of a line parts columns (a form's, a table's). */
const COLUMN_GAP_HEIGHTS = 3;
/** A value to the right of its label starts within this many line heights of it. */
export const RIGHT_REACH_HEIGHTS = 3;
/** The longest value taken to the right of, or below, a label, in line heights. */
const MAX_VALUE_HEIGHTS = 14;
/** The cell below a header starts within this many line heights under it. */
const BELOW_REACH_HEIGHTS = 1.8;

export const heightOf = (box: Box) => Math.max(1, box.y1 - box.y0);
const centerX = (box: Box) => (box.x0 + box.x1) / 2;
const centerY = (box: Box) => (box.y0 + box.y1) / 2;

export function union(boxes: readonly Box[]): Box {
  return {
    x0: Math.min(...boxes.map((box) => box.x0)),
    y0: Math.min(...boxes.map((box) => box.y0)),
    x1: Math.max(...boxes.map((box) => box.x1)),
    y1: Math.max(...boxes.map((box) => box.y1)),
  };
}

/** The box characters [start, end) of a line cover: one rectangle over all their words. */
export function spanBox(page: OcrPage, line: PageLine, start: number, end: number): Box | undefined {
  const parts: Box[] = [];
  for (let position = 0; position < line.words.length; position++) {
    const chars: number[] = [];
    for (let char = start; char < end; char++) if (line.wordOf[char] === position) chars.push(line.offsetInWord[char]!);
    if (!chars.length) continue;
    parts.push(partOfWord(page.words[line.words[position]!]!, line.boxes[position]!, Math.min(...chars), Math.max(...chars) + 1));
  }
  return parts.length ? union(parts) : undefined;
}

/**
 * The quads of characters [start, end) of a line, in order (see OcrWord.charQuads); undefined
 * unless its reader placed every one of them so.
 */
export function spanCharQuads(page: OcrPage, line: PageLine, start: number, end: number): Quad[] | undefined {
  const quads: Quad[] = [];
  for (let char = start; char < end; char++) {
    const position = line.wordOf[char]!;
    if (position < 0) continue;
    const word = page.words[line.words[position]!]!;
    const quad = word.charQuads?.[[...word.text.slice(0, line.offsetInWord[char]!)].length];
    if (!quad) return undefined;
    if (quads.at(-1) !== quad) quads.push(quad);
  }
  return quads;
}

/**
 * The part of a word UTF-16 characters [from, to) take: the union of their own boxes when the
 * reader placed each character, else a share of the word's box by character widths.
 */
function partOfWord(word: OcrWord, box: Box, from: number, to: number): Box {
  if (!word.chars) return boxOfChars(word.text, box, from, to);
  const first = [...word.text.slice(0, from)].length;
  const last = [...word.text.slice(0, to)].length;
  const placed = word.chars.slice(first, Math.max(first + 1, last));
  return placed.length ? union(placed) : boxOfChars(word.text, box, from, to);
}

/** Whether characters [start, end) of a line stand on both sides of a blank that parts columns. */
export function crossesColumnGap(line: PageLine, start: number, end: number): boolean {
  let previous = -1;
  for (let char = start; char < end; char++) {
    const position = line.wordOf[char]!;
    if (position < 0 || position === previous) continue;
    if (previous >= 0) {
      const [left, right] = [line.boxes[previous]!, line.boxes[position]!];
      if (right.x0 - left.x1 > COLUMN_GAP_HEIGHTS * Math.max(heightOf(left), heightOf(right))) return true;
    }
    previous = position;
  }
  return false;
}

/** Whether a label ending at character `end` of its line is the last thing on the line. */
export function endsLine(line: PageLine, end: number): boolean {
  return line.wordOf[end - 1] === line.words.length - 1 || end >= line.text.trimEnd().length;
}

/** The box of the first word of the line right of the label. */
export function firstWordRightOf(line: PageLine, labelBox: Box): Box | undefined {
  return line.boxes.find((box) => box.x0 >= labelBox.x1 - 1);
}

/** The first group of words right of the label on its row, from other lines than its own. */
export function wordsRightOf(page: OcrPage, labelBox: Box, line: PageLine): OcrWord[] {
  const height = heightOf(labelBox);
  const onLine = new Set(line.words);
  const candidates = page.words
    .filter((word, index) => !onLine.has(index) && word.box.x0 >= labelBox.x1 - height / 2)
    .filter((word) => centerY(word.box) > labelBox.y0 && centerY(word.box) < labelBox.y1)
    .sort((a, b) => a.box.x0 - b.box.x0);
  return wordGroup(candidates, labelBox.x1, height, RIGHT_REACH_HEIGHTS);
}

/** Words that follow each other with small gaps, the first within `reach` heights of `from`. */
function wordGroup(sorted: readonly OcrWord[], from: number, height: number, reach: number): OcrWord[] {
  const group: OcrWord[] = [];
  let edge = from;
  for (const word of sorted) {
    const gap = word.box.x0 - edge;
    if (gap > (group.length ? VALUE_GAP_HEIGHTS : reach) * height) break;
    if (word.box.x1 - from > MAX_VALUE_HEIGHTS * height) break;
    group.push(word);
    edge = Math.max(edge, word.box.x1);
  }
  return group;
}

/** The cell under a header label: words of the next row whose centre lies in the label's column, left to right. */
export function cellBelow(page: OcrPage, labelBox: Box, nextHeaderX0: number | undefined): OcrWord[] {
  const height = heightOf(labelBox);
  const columnEnd = Math.min(nextHeaderX0 ?? Infinity, labelBox.x0 + MAX_VALUE_HEIGHTS * height);
  const columnStart = labelBox.x0 - height;
  const below = page.words.filter((word) => word.box.y0 >= labelBox.y1 - height / 4 && word.box.y0 <= labelBox.y1 + BELOW_REACH_HEIGHTS * height);
  if (!below.length) return [];
  const rowTop = Math.min(...below.map((word) => word.box.y0));
  return below
    .filter((word) => word.box.y0 < rowTop + height && centerX(word.box) >= columnStart && centerX(word.box) < columnEnd)
    .sort((a, b) => a.box.x0 - b.box.x0);
}
