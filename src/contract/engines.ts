/**
 * The engines' vocabulary as /readyz and /metrics report it: which engines exist, the states
 * they move through, and what each says about itself.
 */
export const ENGINE_NAMES = ['llm', 'ocr', 'asr'] as const;

export type EngineName = (typeof ENGINE_NAMES)[number];

export const ENGINE_STATES = ['ready', 'starting', 'unavailable', 'failed'] as const;

export type EngineState = (typeof ENGINE_STATES)[number];

export interface EngineStatus {
  state: EngineState;
  /** Why the engine is not ready, in words an operator can act on. */
  reason?: string;
  /** Whether the operator configured this engine; /readyz waits only for configured engines. */
  configured: boolean;
  /** Model in use as `<file name>@<first 12 hex of its sha256>`, once known. */
  model?: string;
  /** Whether the model's sha256 matched the manifest or SHA256SUMS (false: nothing vouches for it). */
  verified?: boolean;
  /** Where it runs, e.g. "cpu" or "cuda: NVIDIA H200", once known. */
  device?: string;
}

/** One engine as the startup report and /readyz show it. */
export interface EngineReport extends EngineStatus {
  /** CPU threads one task uses here (OCR: each worker is one thread; a remote LLM: none). */
  threads: number;
  /** Tasks run at once (the engine's limiter). */
  concurrency: number;
}
