import type { z } from 'zod';

export type EngineName = 'llm' | 'ocr' | 'asr';

export type EngineState = 'ready' | 'starting' | 'unavailable' | 'failed';

export interface EngineStatus {
  state: EngineState;
  /** Why the engine is not ready, in words an operator can act on. */
  reason?: string;
  /** Whether the operator configured this engine; /readyz waits only for configured engines. */
  configured: boolean;
  /** Model or binary in use, e.g. "qwen2.5-7b-instruct-q4_k_m.gguf". */
  model?: string;
}

export interface Engine {
  readonly name: EngineName;
  status(): EngineStatus;
  close(): Promise<void>;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmJsonRequest<T> {
  messages: ChatMessage[];
  /** Output is constrained to this schema's JSON Schema and re-validated with it. */
  schema: z.ZodType<T>;
  maxTokens: number;
}

export interface LlmEngine extends Engine {
  readonly name: 'llm';
  generateJson<T>(request: LlmJsonRequest<T>, signal: AbortSignal): Promise<T>;
}

export interface OcrWord {
  text: string;
  confidence: number;
  box: { x0: number; y0: number; x1: number; y1: number };
}

export interface OcrPage {
  text: string;
  words: OcrWord[];
  width: number;
  height: number;
}

export interface OcrEngine extends Engine {
  readonly name: 'ocr';
  recognize(image: Buffer, signal: AbortSignal): Promise<OcrPage>;
}

export interface AudioInput {
  bytes: Buffer;
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
