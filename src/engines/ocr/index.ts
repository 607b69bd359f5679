export { createOcrEngine, TesseractOcrEngine } from './engine.js';
export type { OcrSettings } from './engine.js';
