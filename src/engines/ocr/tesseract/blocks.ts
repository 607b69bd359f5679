/** tesseract's reading as an OcrPage's words and text. */
import type { OcrWord } from '../../types.js';
import { joinLine } from '../line-text.js';

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
        const text = joinLine(kept.map((word) => word.text));
        if (!text) continue;
        for (const word of kept) {
          words.push({ text: word.text.trim(), confidence: word.confidence, box: { ...word.bbox }, line: lines.length });
        }
        lines.push(text);
      }
    }
  }
  const confidence = words.length ? words.reduce((sum, word) => sum + word.confidence, 0) / words.length : 0;
  return { text: lines.join('\n'), words, confidence };
}
