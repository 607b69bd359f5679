export { createOcrEngine, TesseractOcrEngine } from './engine.js';
export type { OcrSettings } from './engine.js';
export { boxOfChars, joinLine, removeCjkSpaces } from './layout.js';
