import type { EngineSet, OcrEngine, OcrPage } from '../../src/engines/types.js';
import { unavailableEngine } from '../../src/engines/unavailable.js';

/**
 * An OCR engine that reads nothing, at once: for tests and benchmarks of what comes before
 * reading (fetching, sniffing, decoding every kind of document), where real recognition would
 * only cost time.
 */
export class BlankOcrEngine implements OcrEngine {
  readonly name = 'ocr' as const;
  pages = 0;

  status() {
    return { state: 'ready' as const, configured: true, model: 'blank' };
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {}

  async recognize(image: Buffer): Promise<OcrPage> {
    if (image.length === 0) throw new Error('an empty image reached the OCR engine');
    this.pages++;
    return { text: '', words: [], width: 1, height: 1, confidence: 0, rotation: 0, deskewRadians: 0 };
  }
}

/** The given engines, the others unavailable. */
export function enginesWith(engines: Partial<EngineSet>): EngineSet {
  return {
    llm: engines.llm ?? unavailableEngine('llm', 'not used in this test', false),
    ocr: engines.ocr ?? unavailableEngine('ocr', 'not used in this test', false),
    asr: engines.asr ?? unavailableEngine('asr', 'not used in this test', false),
  };
}
