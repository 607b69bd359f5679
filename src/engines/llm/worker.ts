/**
 * The LLM process: holds the model, one context with `parallel` sequences, and answers the
 * supervisor's messages (protocol.ts). It is started by `child_process.fork` from engine.ts and
 * exits when the supervisor goes away. Nothing here logs prompts or outputs (patient data).
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import {
  getLlama,
  LlamaChat,
  LlamaLogLevel,
  resolveChatWrapper,
  type ChatHistoryItem,
  type ChatWrapper,
  type GbnfJsonSchema,
  type Llama,
  type LlamaContextSequence,
  type LlamaGrammar,
  type LlamaModel,
} from 'node-llama-cpp';
import type { ChatMessage } from '../types.js';
import { checkExpectedHash } from '../../platform/models/trust.js';
import { modelFingerprint, modelLabel } from '../model-version.js';
import type {
  ChildMessage,
  CountMessage,
  GenerateMessage,
  LoadMessage,
  LoadSettings,
  ParentMessage,
  StopReason,
  WorkerErrorKind,
} from './protocol.js';
import { SequencePool } from './sequence-pool.js';

const MAX_GRAMMARS = 64;
const MAX_LOG_CHARS = 500;

interface Runtime {
  llama: Llama;
  model: LlamaModel;
  chatWrapper: ChatWrapper;
  contextTokens: number;
  pool: SequencePool<LlamaContextSequence>;
  grammars: Map<string, Promise<LlamaGrammar>>;
}

let runtime: Runtime | undefined;
let loading = false;
const inFlight = new Map<number, AbortController>();

function send(message: ChildMessage): void {
  if (process.connected) process.send?.(message);
}

/** An error in one printable line: library messages may carry raw bytes (e.g. a bad file's header). */
const errorText = (error: unknown): string =>
  (error instanceof Error ? `${error.name}: ${error.message}` : String(error))
    .replace(/[\p{Cc}\ufffd]+/gu, '?')
    .replace(/\.$/, '')
    .slice(0, MAX_LOG_CHARS);

async function openModel(settings: LoadSettings): Promise<{ runtime: Runtime; device: string }> {
  const llama = await getLlama({
    build: 'never',
    usePrebuiltBinaries: true,
    skipDownload: true,
    progressLogs: false,
    logLevel: LlamaLogLevel.error,
    logger: (level, message) => {
      if (level === LlamaLogLevel.error || level === LlamaLogLevel.fatal) {
        send({ type: 'log', level: 'error', message: message.slice(0, MAX_LOG_CHARS) });
      }
    },
    gpu: settings.gpu === 'off' ? false : settings.gpu,
    maxThreads: settings.threads,
  });
  const model = await llama.loadModel({ modelPath: settings.modelPath, gpuLayers: settings.gpuLayers });
  // contextSize is per sequence: node-llama-cpp allocates contextSize × sequences KV cells.
  const context = await model.createContext({
    sequences: settings.parallel,
    contextSize: settings.contextSize,
    threads: settings.threads,
  });
  const sequences = Array.from({ length: settings.parallel }, () => context.getSequence());
  let device = 'cpu';
  if (llama.gpu !== false && model.gpuLayers > 0) {
    const names = await llama.getGpuDeviceNames().catch(() => [] as string[]);
    const totalLayers = model.fileInsights.totalLayers;
    device = `${llama.gpu}: ${names.join(', ') || 'unknown device'}`;
    if (model.gpuLayers < totalLayers) device += ` (${model.gpuLayers} of ${totalLayers} layers)`;
  }
  return {
    device,
    runtime: {
      llama,
      model,
      chatWrapper: resolveChatWrapper(model),
      contextTokens: context.contextSize,
      pool: new SequencePool(sequences),
      grammars: new Map(),
    },
  };
}

async function load(message: LoadMessage): Promise<void> {
  if (runtime || loading) return;
  loading = true;
  const started = performance.now();
  const { modelPath } = message.settings;
  if (!existsSync(modelPath)) {
    send({ type: 'loadFailed', state: 'unavailable', reason: `model file not found: ${modelPath}` });
    return;
  }
  try {
    const hashing = modelFingerprint(modelPath, message.known);
    // A model that must match a vouched-for hash is checked before it is loaded at all.
    const { expected } = message.settings;
    const verified = expected ? checkExpectedHash(modelPath, (await hashing).sha256, expected) : false;
    const [fingerprint, opened] = await Promise.all([hashing, openModel(message.settings)]);
    runtime = opened.runtime;
    send({
      type: 'loaded',
      model: modelLabel(modelPath, fingerprint.sha256),
      device: opened.device,
      contextTokens: opened.runtime.contextTokens,
      sha256: fingerprint.sha256,
      verified,
      fingerprint,
      loadMs: Math.round(performance.now() - started),
    });
  } catch (error) {
    send({ type: 'loadFailed', state: 'failed', reason: `cannot load the model ${basename(modelPath)}: ${errorText(error)}` });
  } finally {
    loading = false;
  }
}

function toHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = messages.map((message): ChatHistoryItem => {
    switch (message.role) {
      case 'system':
        return { type: 'system', text: message.content };
      case 'user':
        return { type: 'user', text: message.content };
      case 'assistant':
        return { type: 'model', response: [message.content] };
    }
  });
  // The response to generate: an empty model turn, as LlamaChatSession does.
  history.push({ type: 'model', response: [] });
  return history;
}

function grammarFor(rt: Runtime, jsonSchema: object): Promise<LlamaGrammar> {
  const key = JSON.stringify(jsonSchema);
  let grammar = rt.grammars.get(key);
  if (!grammar) {
    grammar = rt.llama.createGrammarForJsonSchema<GbnfJsonSchema>(jsonSchema as GbnfJsonSchema);
    grammar.catch(() => rt.grammars.delete(key));
    rt.grammars.set(key, grammar);
    if (rt.grammars.size > MAX_GRAMMARS) rt.grammars.delete(rt.grammars.keys().next().value as string);
  }
  return grammar;
}

function fail(id: number, kind: WorkerErrorKind, message: string): void {
  send({ type: 'error', id, kind, message });
}

async function generate(message: GenerateMessage): Promise<void> {
  const { id, maxTokens } = message;
  const controller = new AbortController();
  inFlight.set(id, controller);
  const { signal } = controller;
  try {
    const rt = runtime;
    if (!rt) return fail(id, 'engine_failed', 'the model is not loaded');
    const history = toHistory(message.messages);
    const promptTokens = rt.chatWrapper
      .generateContextState({ chatHistory: history })
      .contextText.tokenize(rt.model.tokenizer).length;
    if (promptTokens + maxTokens > rt.contextTokens) {
      return fail(
        id,
        'payload_too_large',
        `the prompt (${promptTokens} tokens) and the output budget (${maxTokens} tokens) do not fit the context (${rt.contextTokens} tokens)`,
      );
    }
    const grammar = await grammarFor(rt, message.jsonSchema);
    const sequence = await rt.pool.acquire(signal);
    const startedAt = performance.now();
    try {
      await sequence.clearHistory(); // nothing of an earlier request stays in the sequence
      const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: rt.chatWrapper });
      try {
        const meter = sequence.tokenMeter.getState();
        const response = await chat.generateResponse(history, {
          grammar,
          maxTokens,
          signal,
          stopOnAbortSignal: true,
          budgets: { thoughtTokens: 0 },
        });
        const outputTokens = sequence.tokenMeter.diff(meter).usedOutputTokens;
        if (signal.aborted) return fail(id, 'aborted', 'aborted');
        const reason = response.metadata.stopReason;
        const stopReason: StopReason =
          reason === 'maxTokens' || reason === 'eogToken' || reason === 'abort' || reason === 'stopGenerationTrigger'
            ? reason
            : 'other';
        send({
          type: 'result',
          id,
          text: response.response,
          stopReason,
          promptTokens,
          outputTokens,
          generationMs: performance.now() - startedAt,
        });
      } finally {
        chat.dispose({ disposeSequence: false });
      }
    } finally {
      rt.pool.release(sequence);
    }
  } catch (error) {
    if (signal.aborted) fail(id, 'aborted', 'aborted');
    else fail(id, 'engine_failed', `generation failed: ${errorText(error)}`);
  } finally {
    inFlight.delete(id);
  }
}

function count(message: CountMessage): void {
  if (!runtime) return fail(message.id, 'engine_failed', 'the model is not loaded');
  try {
    send({ type: 'counted', id: message.id, tokens: runtime.model.tokenize(message.text).length });
  } catch (error) {
    fail(message.id, 'engine_failed', `tokenizing failed: ${errorText(error)}`);
  }
}

process.on('message', (message: ParentMessage) => {
  switch (message.type) {
    case 'load':
      void load(message);
      break;
    case 'generate':
      void generate(message);
      break;
    case 'abort':
      inFlight.get(message.id)?.abort(new Error('aborted by the supervisor'));
      break;
    case 'count':
      count(message);
      break;
  }
});

// The supervisor is gone (it exited or closed the channel): nobody can use the model any more.
process.on('disconnect', () => process.exit(0));
