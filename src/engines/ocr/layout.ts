/**
 * Reading-order text from recognised words: words of a line joined by one space, except between
 * CJK characters (tesseract puts a space between every Chinese character), lines by newlines.
 */
import type { OcrWord } from '../types.js';

const CJK = '\\p{Script=Han}\\u3000-\\u303f\\uff00-\\uffef';
const PUNCTUATION = ':;,.!?()';
const SPACE_BETWEEN_CJK = new RegExp(
  `(?<=[${CJK}])[ \\t]+(?=[${CJK}${PUNCTUATION}])|(?<=[${CJK}${PUNCTUATION}])[ \\t]+(?=[${CJK}])`,
  'gu',
);

/**
 * Drops spaces between two CJK characters, and between CJK and punctuation ("姓名 : 张三" →
 * "姓名:张三"); keeps those between CJK and digits or Latin words, which separate fields.
 */
export function removeCjkSpaces(text: string): string {
  return text.replace(SPACE_BETWEEN_CJK, '');
}

export function joinLine(words: readonly string[]): string {
  return removeCjkSpaces(words.map((word) => word.trim()).filter(Boolean).join(' '));
}

export interface TesseractLine {
  words: ReadonlyArray<{ text: string; confidence: number; bbox: OcrWord['box'] }>;
}

export interface TesseractBlock {
  paragraphs: ReadonlyArray<{ lines: readonly TesseractLine[] }>;
}

/** Words (with boxes) and text of tesseract's blocks → paragraphs → lines → words. */
export function pageFromBlocks(blocks: readonly TesseractBlock[]): { text: string; words: OcrWord[]; confidence: number } {
  const words: OcrWord[] = [];
  const lines: string[] = [];
  for (const block of blocks) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const kept = line.words.filter((word) => word.text.trim());
        for (const word of kept) {
          words.push({ text: word.text.trim(), confidence: word.confidence, box: { ...word.bbox } });
        }
        const text = joinLine(kept.map((word) => word.text));
        if (text) lines.push(text);
      }
    }
  }
  const confidence = words.length ? words.reduce((sum, word) => sum + word.confidence, 0) / words.length : 0;
  return { text: lines.join('\n'), words, confidence };
}
