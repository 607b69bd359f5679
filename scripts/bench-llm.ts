/**
 * What the LLM engine's process isolation costs: the gateway's engine (model in a child
 * process, requests over IPC, zod re-validation) against node-llama-cpp called in this process,
 * with the same model, threads, context size, sequences, grammar, prompt and token budget.
 *
 *   npm run bench:llm                                  (random-weight Qwen2.5-0.5B shape, q8_0)
 *   npm run bench:llm -- --shape tiny --runs 2         (quick)
 *   npm run bench:llm -- --concurrency 1,2,4 --tokens 96 --chars 120 --threads 2 --gpu off
 *   npm run bench:llm -- --skip-http                  (engine vs in-process only)
 *
 * Then the gateway's HTTP endpoint: a speech-process request against node-llama-cpp called
 * directly with the judge prompt, grammar and token budget that request makes, and the cached
 * path's req/s.
 *
 * The model is written by scripts/lib/models/make-test-model.ts (no download): real dimensions,
 * random weights, real Qwen2 tokenizer. Its output is gibberish, but greedy decoding makes both
 * sides produce the same tokens, and the JSON-schema grammar keeps it valid JSON. With random
 * weights nearly every sampled token breaks the grammar, so node-llama-cpp re-applies the
 * grammar to the whole 151,936-token vocabulary at every step: tokens/s are far below what a
 * trained model reaches; the ratio between the two sides is the figure to read.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  getLlama,
  LlamaChat,
  LlamaLogLevel,
  resolveChatWrapper,
  type ChatHistoryItem,
  type GbnfJsonSchema,
  type LlamaContextSequence,
  type LlamaGrammar,
} from 'node-llama-cpp';
import { z } from 'zod';
import { grammarSchemaFor, LlamaCppEngine } from '../src/engines/llm/index.js';
import type { ChatMessage } from '../src/engines/types.js';
import { judgeAnswer, judgeMessages, MAX_QUOTE_CHARS } from '../src/operations/speech-process/prompts.js';
import { startLlmGateway } from './lib/gateway.js';
import { ensureTestModel, SHAPES, type ShapeName, type WeightType } from './lib/models/make-test-model.js';
import { readyStatus } from '../src/engines/readiness.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    shape: { type: 'string', default: 'qwen2.5-0.5b' },
    type: { type: 'string', default: 'q8_0' },
    tokens: { type: 'string', default: '128' },
    chars: { type: 'string', default: '120' },
    runs: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '1,2,4' },
    threads: { type: 'string', default: String(availableParallelism()) },
    context: { type: 'string', default: '2048' },
    gpu: { type: 'string', default: 'off' },
    'skip-http': { type: 'boolean', default: false },
  },
});

const shape = args.shape as ShapeName;
if (!(shape in SHAPES)) throw new Error(`unknown --shape ${shape}; known: ${Object.keys(SHAPES).join(', ')}`);
const weightType = args.type as WeightType;
const maxTokens = Number(args.tokens);
const chars = Number(args.chars);
const runs = Number(args.runs);
const levels = args.concurrency.split(',').map(Number);
const threads = Number(args.threads);
const contextSize = Number(args.context);
const gpu = args.gpu as 'auto' | 'cuda' | 'vulkan' | 'off';

/** Synthetic text (no patient data); the same prompt for every request on both sides. */
const messages: ChatMessage[] = [
  { role: 'system', content: 'You summarise multidisciplinary team meeting notes. Answer with JSON only.' },
  {
    role: 'user',
    content:
      'Synthetic note: 65-year-old, two weeks of cough, CT shows a 2.1 cm nodule in the right upper lobe. ' +
      '合成病例：男，65岁，咳嗽两周，胸部CT示右上肺结节2.1厘米。Summarise the key question for the team.',
  },
];
/** A fixed-length string: both sides write the same number of characters (and, greedy, the same tokens). */
const schema = z.object({ summary: z.string().min(chars).max(chars) });

interface Sample {
  latencyMs: number;
  outputTokens: number;
}

interface Measurement {
  samples: Sample[];
  wallMs: number;
}

/**
 * Rounds of `concurrency` requests on each side, interleaved A B B A … so that load from
 * elsewhere on the machine (and thermal drift) weighs on both sides alike.
 */
async function measurePair(concurrency: number, a: () => Promise<Sample>, b: () => Promise<Sample>) {
  const round = (one: () => Promise<Sample>) => Promise.all(Array.from({ length: concurrency }, one));
  await round(a); // warm-up: grammar, first evaluation
  await round(b);
  const result = { a: { samples: [], wallMs: 0 } as Measurement, b: { samples: [], wallMs: 0 } as Measurement };
  for (let run = 0; run < runs; run++) {
    const order = run % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const side of order) {
      const startedAt = performance.now();
      result[side].samples.push(...(await round(side === 'a' ? a : b)));
      result[side].wallMs += performance.now() - startedAt;
    }
  }
  return result;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

function summarise(m: Measurement) {
  const tokens = sum(m.samples.map((s) => s.outputTokens));
  return {
    latencyMs: median(m.samples.map((s) => s.latencyMs)),
    tokensPerRequest: tokens / m.samples.length,
    perRequestTps: median(m.samples.map((s) => (s.outputTokens / s.latencyMs) * 1000)),
    aggregateTps: (tokens / m.wallMs) * 1000,
  };
}

async function startEngine(modelPath: string, concurrency: number) {
  const engine = new LlamaCppEngine({
    settings: { modelPath, gpu, gpuLayers: gpu === 'off' ? 0 : 'max', parallel: concurrency, contextSize, threads },
    timeoutMs: 600_000,
  });
  const startedAt = performance.now();
  await engine.start();
  const loadMs = performance.now() - startedAt;
  const status = await readyStatus('llm', () => engine.status(), 0);
  const signal = new AbortController().signal;
  const request = async (): Promise<Sample> => {
    const t = performance.now();
    const { stats } = await engine.generateJsonWithStats({ messages, schema, maxTokens }, signal);
    return { latencyMs: performance.now() - t, outputTokens: stats.outputTokens };
  };
  return { engine, request, loadMs, device: status.device ?? '?', contextTokens: engine.contextTokens() };
}

async function main() {
  const modelsDir = resolve(process.env.MODELS_DIR || './models');
  console.log(`model: random ${shape} ${weightType} (writing it if missing) …`);
  const model = await ensureTestModel({ modelsDir, shape, type: weightType });
  console.log(`  ${model.path} (${(model.bytes / 2 ** 20).toFixed(0)} MiB)`);
  console.log(
    `settings: threads ${threads}, context ${contextSize}/sequence, maxTokens ${maxTokens}, ` +
      `string of ${chars} chars, ${runs} runs per level, gpu ${gpu}\n`,
  );

  // In-process side: one model, a context per concurrency level (as the engine has).
  const llama = await getLlama({
    build: 'never',
    usePrebuiltBinaries: true,
    skipDownload: true,
    progressLogs: false,
    logLevel: LlamaLogLevel.error,
    gpu: gpu === 'off' ? false : gpu,
    maxThreads: threads,
  });
  const loadStarted = performance.now();
  const inProcessModel = await llama.loadModel({ modelPath: model.path, gpuLayers: gpu === 'off' ? 0 : 'max' });
  const inProcessLoadMs = performance.now() - loadStarted;
  const chatWrapper = resolveChatWrapper(inProcessModel);
  const grammar = await llama.createGrammarForJsonSchema<GbnfJsonSchema>(grammarSchemaFor(schema) as GbnfJsonSchema);
  const history: ChatHistoryItem[] = [
    { type: 'system', text: messages[0]!.content },
    { type: 'user', text: messages[1]!.content },
    { type: 'model', response: [] },
  ];

  /** node-llama-cpp called directly: one context of `concurrency` sequences, the given prompt, grammar and budget. */
  async function openInProcess(concurrency: number, job: InProcessJob = { history, grammar, maxTokens, schema }) {
    const context = await inProcessModel.createContext({ sequences: concurrency, contextSize, threads });
    const free: LlamaContextSequence[] = Array.from({ length: concurrency }, () => context.getSequence());
    const request = async (): Promise<Sample> => {
      const sequence = free.pop()!;
      try {
        const t = performance.now();
        await sequence.clearHistory();
        const chat = new LlamaChat({ contextSequence: sequence, chatWrapper });
        const meter = sequence.tokenMeter.getState();
        const response = await chat.generateResponse(job.history, {
          grammar: job.grammar,
          maxTokens: job.maxTokens,
          budgets: { thoughtTokens: 0 },
        });
        job.schema.parse(JSON.parse(response.response));
        chat.dispose({ disposeSequence: false });
        return { latencyMs: performance.now() - t, outputTokens: sequence.tokenMeter.diff(meter).usedOutputTokens };
      } finally {
        free.push(sequence);
      }
    };
    return { context, request };
  }

  const rows: string[][] = [];
  let engineLoad = '';
  for (const concurrency of levels) {
    console.log(`concurrency ${concurrency} …`);
    const engine = await startEngine(model.path, concurrency);
    engineLoad ||= `engine start (child, load, sha256 from cache or computed): ${(engine.loadMs / 1000).toFixed(1)} s; device ${engine.device}; context ${engine.contextTokens} tokens/sequence`;
    const direct = await openInProcess(concurrency);
    try {
      const pair = await measurePair(concurrency, engine.request, direct.request);
      const [viaEngine, inProcess] = [summarise(pair.a), summarise(pair.b)];
      rows.push([
        String(concurrency),
        `${viaEngine.tokensPerRequest.toFixed(0)} / ${inProcess.tokensPerRequest.toFixed(0)}`,
        `${viaEngine.latencyMs.toFixed(0)} / ${inProcess.latencyMs.toFixed(0)}`,
        (viaEngine.latencyMs / inProcess.latencyMs).toFixed(3),
        `${viaEngine.perRequestTps.toFixed(1)} / ${inProcess.perRequestTps.toFixed(1)}`,
        `${viaEngine.aggregateTps.toFixed(1)} / ${inProcess.aggregateTps.toFixed(1)}`,
        (viaEngine.aggregateTps / inProcess.aggregateTps).toFixed(3),
      ]);
    } finally {
      await engine.engine.close();
      await direct.context.dispose();
    }
  }

  console.log(`\n${engineLoad}`);
  console.log(`in-process model load: ${(inProcessLoadMs / 1000).toFixed(1)} s\n`);
  const header = [
    'concurrent',
    'tokens/req',
    'latency p50 ms (engine / in-process)',
    'ratio',
    'tokens/s per request',
    'tokens/s aggregate',
    'ratio',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join(' | ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const row of rows) console.log(line(row));
  console.log('\nengine / in-process; ratio = engine ÷ in-process (latency: above 1 is slower; tokens/s: below 1 is slower)');
  console.log(`latency: median of ${runs} rounds × concurrency requests per side, rounds interleaved A B B A`);

  if (!args['skip-http']) {
    const judge = judgeJob();
    const direct = await openInProcess(1, {
      history: toHistory(judge.messages),
      grammar: await llama.createGrammarForJsonSchema<GbnfJsonSchema>(grammarSchemaFor(judge.schema) as GbnfJsonSchema),
      maxTokens: judge.maxTokens,
      schema: judge.schema,
    });
    try {
      await benchHttp(model.path, direct.request);
    } finally {
      await direct.context.dispose();
    }
  }
  await llama.dispose();
}

interface InProcessJob {
  history: ChatHistoryItem[];
  grammar: LlamaGrammar;
  maxTokens: number;
  schema: z.ZodType;
}

function toHistory(chat: ChatMessage[]): ChatHistoryItem[] {
  return [
    ...chat.map((m): ChatHistoryItem => (m.role === 'system' ? { type: 'system', text: m.content } : { type: 'user', text: m.content })),
    { type: 'model', response: [] },
  ];
}

/** A synthetic speech-process request (no patient data) and the judge call it makes. */
const SPEECH_REQUEST = {
  cancer_type: '肺癌',
  standard_department_code: 'RAD',
  points: [{ seq: 1, name: '影像学表现' }],
  speech_text: '合成病例。我们看一下影像，右肺上叶见2.1厘米结节，边缘有毛刺，纵隔淋巴结未见明显肿大，建议进一步检查。',
};

function judgeJob() {
  const messages = judgeMessages(SPEECH_REQUEST, SPEECH_REQUEST.points, SPEECH_REQUEST.speech_text, '');
  // The operation's own budget: 32 tokens per call plus 24 + 150 per point.
  return { messages, schema: judgeAnswer(SPEECH_REQUEST.points), maxTokens: 32 + SPEECH_REQUEST.points.length * (24 + MAX_QUOTE_CHARS) };
}

/**
 * The gateway's HTTP endpoint against node-llama-cpp called directly with the judge prompt,
 * grammar and budget that request makes; then the cached path. A random model covers nothing,
 * so the request makes exactly one generation (plus one token count) and no organize call.
 */
async function benchHttp(modelPath: string, direct: () => Promise<Sample>) {
  console.log('\nspeech-process over HTTP vs the same judge generation in-process …');
  const gateway = await startLlmGateway(modelPath, {
    LLM_THREADS: String(threads),
    LLM_PARALLEL: '1',
    LLM_CONTEXT_SIZE: String(contextSize),
    LLM_GPU: gpu,
  });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(gateway.app.server.address() as { port: number }).port}/ai/v1/speech-process`;
  let run = 0;
  // A distinct voice_segments makes a distinct artifact (no cache hit) while the prompt stays the same.
  const viaHttp = async (): Promise<Sample> => {
    run++;
    const body = { request_id: `bench-${run}`, ...SPEECH_REQUEST, voice_segments: [{ voice_url: `http://voice/${run}.wav`, start_ms: 0, end_ms: 1, text: '合成' }] };
    const t = performance.now();
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (response.status !== 200) throw new Error(`speech-process answered ${response.status}: ${await response.text()}`);
    await response.json();
    return { latencyMs: performance.now() - t, outputTokens: NaN };
  };
  try {
    const pair = await measurePair(1, viaHttp, direct);
    const httpMs = median(pair.a.samples.map((x) => x.latencyMs));
    const directMs = median(pair.b.samples.map((x) => x.latencyMs));
    const tokens = median(pair.b.samples.map((x) => x.outputTokens));
    console.log(`  HTTP p50 ${httpMs.toFixed(0)} ms, in-process p50 ${directMs.toFixed(0)} ms (${tokens} output tokens): ratio ${(httpMs / directMs).toFixed(3)}, tokens/s ${((tokens / httpMs) * 1000).toFixed(1)} vs ${((tokens / directMs) * 1000).toFixed(1)} (${(directMs / httpMs).toFixed(3)}×)`);
    await benchCachedPath(url);
  } finally {
    await gateway.close();
  }
}

/** The same request again and again: answered from the SQLite store without touching the model. */
async function benchCachedPath(url: string) {
  const body = JSON.stringify({ request_id: 'bench-cached', ...SPEECH_REQUEST });
  await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const autocannon = createRequire(import.meta.url)('autocannon') as (options: object) => Promise<{ requests: { average: number }; latency: { p50: number; p99: number }; errors: number; non2xx: number }>;
  const result = await autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: 10, duration: 5 });
  console.log(`  cached path: ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms (10 connections, 5 s; errors ${result.errors}, non-2xx ${result.non2xx})`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
