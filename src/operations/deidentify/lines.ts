/**
 * A page's words as lines of text the detectors read, with the way back from every character
 * to the word (and the part of its box) it came from. Lines are joined exactly as the OCR text
 * is (one space between words, none between CJK characters), so a detector sees what case-ocr
 * returns.
 */
import { removeCjkSpaces } from '../../engines/ocr/layout.js';
import type { OcrPage, OcrWord } from '../../engines/types.js';

type Box = OcrWord['box'];

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
 * ("张" 253–503 px with "三" at 340 and "性" at 399): a word's box is cut where the next word
 * on the line begins, so a name's box does not swallow the label after it.
 */
function tidyBoxes(boxes: readonly Box[]): Box[] {
  return boxes.map((box, position) => {
    const next = boxes[position + 1];
    return next && next.x0 > box.x0 && next.x0 < box.x1 ? { ...box, x1: next.x0 } : { ...box };
  });
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
