/**
 * A page's words as lines of text the detectors read, with the way back from every character
 * to the word (and the part of its box) it came from. Lines are joined exactly as the OCR text
 * is (one space between words, none between CJK characters), so a detector sees what case-ocr
 * returns.
 */
import { removeCjkSpaces } from '../../engines/ocr/index.js';
import type { Box, OcrPage } from '../../engines/types.js';

export interface PageLine {
  text: string;
  /** Indices into page.words, left to right. */
  words: number[];
  /** The words' boxes, each ending where the next word begins (see tidyBoxes). */
  boxes: Box[];
  /** Per character of `text`: the position in `words` it belongs to, or -1 for a joining space. */
  wordOf: Int32Array;
  /** Per character of `text`: its offset in its word's text. */
  offsetInWord: Int32Array;
}

/** Whether two words are joined with a space (removeCjkSpaces keeps it). */
function spaceBetween(left: string, right: string): boolean {
  const a = left.at(-1) ?? '';
  const b = right[0] ?? '';
  return removeCjkSpaces(`${a} ${b}`).length === 3;
}

function lineOf(page: OcrPage, wordIndices: number[]): PageLine {
  const wordOf: number[] = [];
  const offsetInWord: number[] = [];
  let text = '';
  wordIndices.forEach((wordIndex, position) => {
    const word = page.words[wordIndex]!.text;
    if (position > 0 && spaceBetween(text, word)) {
      text += ' ';
      wordOf.push(-1);
      offsetInWord.push(0);
    }
    for (let offset = 0; offset < word.length; offset++) {
      wordOf.push(position);
      offsetInWord.push(offset);
    }
    text += word;
  });
  return {
    text,
    words: wordIndices,
    boxes: tidyBoxes(wordIndices.map((index) => page.words[index]!.box)),
    wordOf: Int32Array.from(wordOf),
    offsetInWord: Int32Array.from(offsetInWord),
  };
}

/**
 * tesseract's Chinese model often gives the first character of a run a box over the whole run
 * ("张" 253–503 px with "三" at 340 and "性" at 399), and some characters boxes nearly twice the
 * line's height: a word's box is cut where the next word on the line begins, and to the line's
 * median top and bottom (with a fifth of its height to spare), so a name's box neither swallows
 * the label after it nor reaches into the next line.
 */
function tidyBoxes(boxes: readonly Box[]): Box[] {
  const top = median(boxes.map((box) => box.y0));
  const bottom = median(boxes.map((box) => box.y1));
  const spare = (bottom - top) / 5;
  return boxes.map((box, position) => {
    const next = boxes[position + 1];
    const x1 = next && next.x0 > box.x0 && next.x0 < box.x1 ? next.x0 : box.x1;
    const y0 = Math.max(box.y0, top - spare);
    const y1 = Math.min(box.y1, bottom + spare);
    return y1 > y0 ? { x0: box.x0, y0, x1, y1 } : { ...box, x1 };
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The page's lines in reading order, each with its words sorted left to right. */
export function pageLines(page: OcrPage): PageLine[] {
  const byLine = new Map<number, number[]>();
  page.words.forEach((word, index) => {
    if (!word.text) return;
    const members = byLine.get(word.line) ?? [];
    members.push(index);
    byLine.set(word.line, members);
  });
  return [...byLine.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, members]) => lineOf(page, members.sort((a, b) => page.words[a]!.box.x0 - page.words[b]!.box.x0)));
}
