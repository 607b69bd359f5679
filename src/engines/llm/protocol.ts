/**
 * The IPC protocol between the LLM supervisor (parent, `engine.ts`) and the process that holds
 * the model (child, `worker.ts`). Messages travel over the `child_process.fork` channel (JSON
 * serialization). Prompts and outputs are patient data: they travel here, but no side logs them.
 */
import type { ExpectedHash } from '../../platform/models/trust.js';
import type { ModelFingerprint } from '../model-version.js';
import type { ChatMessage } from '../types.js';

/** Settings of one model load, from `config.llm` with the model path resolved. */
export interface LoadSettings {
  modelPath: string;
  gpu: 'auto' | 'cuda' | 'vulkan' | 'off';
  gpuLayers: 'auto' | 'max' | number;
  /** Sequences of the one context: generations run at once. */
  parallel: number;
  /** Tokens ONE sequence holds (node-llama-cpp's `contextSize` is per sequence). */
  contextSize: number;
  threads: number;
  /** The sha256 the model must have (MODELS_VERIFY); a mismatch fails the load. */
  expected?: ExpectedHash;
}

export type { ModelFingerprint };

/** Why a generation or count failed inside the child. */
export type WorkerErrorKind = 'aborted' | 'payload_too_large' | 'engine_failed';

/** How the model stopped generating (node-llama-cpp's stop reasons, simplified). */
export type StopReason = 'eogToken' | 'stopGenerationTrigger' | 'maxTokens' | 'abort' | 'other';

// ---------------------------------------------------------------------------------------------
// Parent → child
// ---------------------------------------------------------------------------------------------

export interface LoadMessage {
  type: 'load';
  settings: LoadSettings;
  /** The fingerprint the parent remembers from an earlier load, so a restart need not re-hash. */
  known?: ModelFingerprint;
}

export interface GenerateMessage {
  type: 'generate';
  id: number;
  messages: ChatMessage[];
  /** A JSON schema in the subset node-llama-cpp's grammar understands (see json-schema.ts). */
  jsonSchema: object;
  maxTokens: number;
}

export interface AbortMessage {
  type: 'abort';
  id: number;
}

export interface CountMessage {
  type: 'count';
  id: number;
  text: string;
}

export type ParentMessage = LoadMessage | GenerateMessage | AbortMessage | CountMessage;

// ---------------------------------------------------------------------------------------------
// Child → parent
// ---------------------------------------------------------------------------------------------

export interface LoadedMessage {
  type: 'loaded';
  /** `<file name>@<first 12 hex of the sha256>` */
  model: string;
  /** "cpu" or "<gpu type>: <device names>" */
  device: string;
  /** Tokens one sequence holds (prompt + output). */
  contextTokens: number;
  sha256: string;
  /** The sha256 matched what the manifest or SHA256SUMS vouch for. */
  verified: boolean;
  fingerprint: ModelFingerprint;
  loadMs: number;
}

export interface LoadFailedMessage {
  type: 'loadFailed';
  /** `unavailable`: the model file is missing; `failed`: it exists but could not be loaded. */
  state: 'unavailable' | 'failed';
  reason: string;
}

export interface ResultMessage {
  type: 'result';
  id: number;
  text: string;
  stopReason: StopReason;
  promptTokens: number;
  outputTokens: number;
  /** Time from getting a sequence to the last token (prompt evaluation + generation). */
  generationMs: number;
}

export interface ErrorMessage {
  type: 'error';
  id: number;
  kind: WorkerErrorKind;
  /** Never quotes prompt or output: sizes and library error texts only. */
  message: string;
}

export interface CountedMessage {
  type: 'counted';
  id: number;
  tokens: number;
}

/** A llama.cpp / node-llama-cpp log line at level error or worse (about the runtime, not the text). */
export interface LogMessage {
  type: 'log';
  level: 'error' | 'warn';
  message: string;
}

export type ChildMessage = LoadedMessage | LoadFailedMessage | ResultMessage | ErrorMessage | CountedMessage | LogMessage;
