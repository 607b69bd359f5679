/**
 * The OCR engine as operations see it: a first reader (PP-OCR, or tesseract.js when configured)
 * and an independent second reader (tesseract.js) that de-identification's audit reads every
 * page with too, so a name one engine cannot see is still caught by the other. Ready when both
 * are; one limiter (OCR) paces them both.
 */
import type { EngineStatus, OcrEngine, OcrPage, RecognizeOptions } from '../types.js';

export class OcrReaders implements OcrEngine {
  readonly name = 'ocr' as const;
  readonly independentReader: boolean;

  /** `independent` is undefined when the first reader is tesseract.js itself: it then audits alone. */
  constructor(
    private readonly first: OcrEngine,
    private readonly independent: OcrEngine | undefined,
  ) {
    this.independentReader = independent !== undefined;
  }

  status(): EngineStatus {
    const first = this.first.status();
    const second = this.independent?.status();
    if (!second) return first;
    const notReady = first.state !== 'ready' ? first : second.state !== 'ready' ? second : undefined;
    // Verified when every file that was checked matched; unset when none was (npm packages are vouched for by the lockfile).
    const checked = [first.verified, second.verified].filter((verified) => verified !== undefined);
    return {
      ...first,
      ...(checked.length > 0 ? { verified: checked.every(Boolean) } : {}),
      ...(notReady ? { state: notReady.state, reason: `${notReady === second ? 'the independent reader: ' : ''}${notReady.reason ?? ''}` } : {}),
      ...(first.model ? { model: `${first.model}; audit: ${second.model ?? 'loading'}` } : {}),
      ...(first.device ? { device: `${first.device}; audit: ${second.device ?? ''}` } : {}),
    };
  }

  async start(): Promise<void> {
    await Promise.all([this.first.start(), this.independent?.start()]);
  }

  recognize(image: Buffer, signal: AbortSignal, options: RecognizeOptions = {}): Promise<OcrPage> {
    const reader = options.reader === 'independent' ? (this.independent ?? this.first) : this.first;
    return reader.recognize(image, signal, options);
  }

  async close(): Promise<void> {
    await Promise.all([this.first.close(), this.independent?.close()]);
  }
}
