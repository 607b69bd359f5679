import type { z } from 'zod';
import type { EngineName, EngineStatus } from '../contract/engines.js';

export type { EngineName, EngineState, EngineStatus } from '../contract/engines.js';

/** A point of a page, in pixels. */
export interface Point {
  x: number;
  y: number;
}

/** Four corners in order: top-left, top-right, bottom-right, bottom-left (of a text line, as it reads). */
export type Quad = [Point, Point, Point, Point];

export interface Engine {
  readonly name: EngineName;
  status(): EngineStatus;
  /** Begins loading in the background; status() says when it is ready. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmJsonRequest<T> {
  messages: ChatMessage[];
  /** Output is constrained to this schema's JSON Schema (grammar) and re-validated with it. */
  schema: z.ZodType<T>;
  maxTokens: number;
  /** Epoch ms after which generation stops with a `timeout` error; without it, LLM_TIMEOUT_MS after it starts. */
  deadline?: number;
}

export interface LlmEngine extends Engine {
  readonly name: 'llm';
  generateJson<T>(request: LlmJsonRequest<T>, signal: AbortSignal): Promise<T>;
  /** Tokens the model's tokenizer makes of `text`, for fitting prompts into the context. */
  countTokens(text: string, signal: AbortSignal): Promise<number>;
  /** Tokens one sequence can hold (prompt + output); known once ready. */
  contextTokens(): number;
}

/** An axis-aligned box, in pixels of the image it was read in. */
export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface OcrWord {
  text: string;
  confidence: number;
  box: Box;
  /** Index of the word's line in the page's `text` (its n-th non-empty line), for layout rules. */
  line: number;
  /** One box per code point of `text`, when the reader places characters (PP-OCR does, from its CTC steps). */
  chars?: Box[];
  /**
   * With `chars`, where the reader knows its line's slant (PP-OCR): each character's part of its
   * line, its first corner where the line begins and its top. A line of a page photographed at a
   * slant runs aslant in this frame, and `chars` are the boxes round these.
   */
  charQuads?: Quad[];
}

/**
 * One recognised page. Boxes are in pixels of the page image as it was read: the input image
 * turned `rotation` degrees clockwise about its centre, onto a canvas grown to hold it whole
 * (straightened and upright; see ocr/plane.ts), then deskewed by `deskewRadians` about its
 * centre (tesseract's own small correction); `width`/`height` are of the turned image.
 * Chinese boxes can be a dozen pixels off, so redaction pads them.
 */
/** How a page lies, as a reading found it: its turn, and its perspective in the page so turned. */
export type PageLie = Pick<OcrPage, 'rotation' | 'perspective'>;

/** A page's perspective: the vanishing line 1 + p·x + q·y = 0, about the centre of the frame it is given in. */
export interface PagePerspective {
  p: number;
  q: number;
}

export interface OcrPage {
  text: string;
  words: OcrWord[];
  width: number;
  height: number;
  /** Mean word confidence, 0–100 (100 for a PDF text layer); lines found but too poorly read to keep count too. */
  confidence: number;
  /** Text lines the reader found but read too poorly to keep (they are not in `words`). */
  illegibleLines?: number;
  /** Degrees clockwise, 0 to 360: any angle for a photo taken askew, a quarter turn for a scan. */
  rotation: number;
  deskewRadians: number;
  /**
   * When the page was photographed at a slant and read in its flat view: its plane's perspective
   * in this frame (the vanishing line 1 + p·x + q·y = 0, x and y in pixels from the frame's centre).
   */
  perspective?: PagePerspective;
  /**
   * Detector pixels per page pixel when the reader found the lines at a smaller scale than the
   * page's own (PP-OCR scales a page to OCR_DET_MAX_SIDE): small print may have been lost there.
   */
  detectionScale?: number;
}

/**
 * Which of the OCR engine's readers reads a page: the first, or `independent`, the second reader,
 * a different OCR engine from the first, for the de-identification audit (what one engine misses
 * the other may read).
 */
export type AuditReader = 'first' | 'independent';

export interface RecognizeOptions {
  /** Read the image turned this many degrees clockwise (known from an earlier reading) instead of finding how it lies. */
  rotation?: OcrPage['rotation'];
  /** With `rotation`: read the page in the flat view of this perspective (in the turned page), as an earlier reading did. */
  perspective?: PagePerspective;
  reader?: AuditReader;
  /** The page is read for de-identification: an engine that reads tables poorly may erase ruling lines first (tesseract does). */
  eraseRulingLines?: boolean;
  /**
   * Look closer: detect the page's lines at its own resolution (PP-OCR: up to 2048 pixels on its
   * long side, not OCR_DET_MAX_SIDE). A second reading so made finds small print the first lost
   * in scaling, such as the far rows of a photo taken at a slant.
   */
  closerLook?: boolean;
  /**
   * Read a page photographed at a slant as it lies, not in its flat view: the two views read the
   * far rows' faint print differently, and de-identification paints what either finds.
   */
  asItLies?: boolean;
}

/**
 * How strictly an OCR engine decodes the image it is given (sharp's options): as strictly as the
 * documents step opens a file, which passes a JPEG or PNG on as it came once it decodes so. A
 * damaged block that libjpeg recovers from is read through; an error or a cut-off file is not.
 */
export const PAGE_DECODING = { failOn: 'error' } as const;

export interface OcrEngine extends Engine {
  readonly name: 'ocr';
  /** Whether `reader: 'independent'` reads with a second, different engine. */
  readonly independentReader?: boolean;
  recognize(image: Buffer, signal: AbortSignal, options?: RecognizeOptions): Promise<OcrPage>;
}

/** A fetched recording on disk, in any container; the caller owns (and deletes) the file. */
export interface AudioInput {
  path: string;
  mediaType: string;
}

export interface Transcript {
  text: string;
  segments: Array<{ startMs: number; endMs: number; text: string }>;
}

export interface AsrEngine extends Engine {
  readonly name: 'asr';
  transcribe(audio: AudioInput, signal: AbortSignal): Promise<Transcript>;
}

export interface EngineSet {
  llm: LlmEngine;
  ocr: OcrEngine;
  asr: AsrEngine;
}
