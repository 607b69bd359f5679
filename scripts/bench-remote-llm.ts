/**
 * What LLM_BACKEND=openai costs against the in-process engine: the same model, prompt, grammar
 * budget, threads and context on both sides, one side node-llama-cpp in the gateway's child
 * process, the other llama.cpp's llama-server (`npm run setup:llama-server`) over HTTP.
 *
 *   npm run bench:remote-llm                                  (random Qwen2.5-0.5B shape, q8_0)
 *   npm run bench:remote-llm -- --shape tiny --runs 2         (quick)
 *   npm run bench:remote-llm -- --threads 2 --runs 6 --chars 120
 *   npm run bench:remote-llm -- --skip-http                  (engine only: a random model's judge calls are long)
 *
 * Two figures, each side by side in one run, requests interleaved A B B A … so other load on the
 * machine weighs on both alike:
 *   - engine: one generation of a fixed-length JSON string (`--chars`, so both sides write the
 *     same text length under their grammar), latency and output tokens/s as each side counts;
 *   - HTTP: POST /ai/v1/speech-process (one point: one token count and one judge call, the
 *     operation's own prompt and budget) to two gateways, LLM_BACKEND=local and openai, latency.
 * The model is random (scripts/lib/models/make-test-model.ts): its output is gibberish, and the
 * two grammar builders (node-llama-cpp's, llama-server's) may let it write different lengths in
 * the judge call; tokens/s is the figure to compare. One request at a time: llama-server with one
 * slot, the local engine with one sequence.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { LlamaCppEngine, OpenAiEngine } from '../src/engines/llm/index.js';
import { readyStatus } from '../src/engines/readiness.js';
import type { LlmJsonRequest } from '../src/engines/types.js';
import { startReadyGateway, type TestGateway } from './lib/gateway.js';
import { LLAMA_SERVER_BIN, llamaServerMissing, startLlamaServer } from './lib/llama-server.js';
import { ensureTestModel, SHAPES, type ShapeName } from './lib/models/make-test-model.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    shape: { type: 'string', default: 'qwen2.5-0.5b' },
    runs: { type: 'string', default: '4' },
    threads: { type: 'string', default: '2' },
    context: { type: 'string', default: '2048' },
    chars: { type: 'string', default: '60' },
    'skip-http': { type: 'boolean', default: false },
  },
});
const shape = args.shape as ShapeName;
if (!(shape in SHAPES)) throw new Error(`unknown --shape ${shape}; known: ${Object.keys(SHAPES).join(', ')}`);
const runs = Number(args.runs);
const threads = Number(args.threads);
const contextSize = Number(args.context);
const TIMEOUT_MS = 600_000;

/** A synthetic speech-process request (no patient data): one point, so one judge call and (a random model covers nothing) no organize call. */
const SPEECH_REQUEST = {
  cancer_type: '肺癌',
  standard_department_code: 'RAD',
  points: [{ seq: 1, name: '影像学表现' }],
  speech_text: '合成病例。我们看一下影像，右肺上叶见2.1厘米结节，边缘有毛刺，纵隔淋巴结未见明显肿大，建议进一步检查。',
};
/** Synthetic text (no patient data) and a string of exactly `--chars` characters. */
const chars = Number(args.chars);
const FIXED: LlmJsonRequest<unknown> = {
  messages: [
    { role: 'system', content: 'You summarise multidisciplinary team meeting notes. Answer with JSON only.' },
    { role: 'user', content: '合成病例：男，65岁，咳嗽两周，胸部CT示右上肺结节2.1厘米。Summarise the key question for the team.' },
  ],
  schema: z.object({ summary: z.string().min(chars).max(chars) }),
  maxTokens: chars * 2,
};

interface Sample {
  latencyMs: number;
  outputTokens: number;
}

/** A warm-up each, then `runs` rounds interleaved A B, B A, … */
async function interleaved(a: () => Promise<Sample>, b: () => Promise<Sample>) {
  await a();
  await b();
  const samples = { a: [] as Sample[], b: [] as Sample[] };
  for (let run = 0; run < runs; run++) {
    for (const side of run % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
      samples[side].push(await (side === 'a' ? a : b)());
      process.stdout.write(side);
    }
  }
  process.stdout.write('\n');
  return samples;
}

const sum = (values: number[]) => values.reduce((x, y) => x + y, 0);
const summary = (samples: Sample[]) => ({
  p50: median(samples.map((s) => s.latencyMs)),
  tokens: sum(samples.map((s) => s.outputTokens)) / samples.length,
  tps: (sum(samples.map((s) => s.outputTokens)) / sum(samples.map((s) => s.latencyMs))) * 1000,
});

async function main() {
  const missing = await llamaServerMissing();
  if (missing) throw new Error(missing);
  const modelsDir = resolve(process.env.MODELS_DIR || './models');
  console.log(`model: random ${shape} q8_0 (writing it if missing) …`);
  const model = await ensureTestModel({ modelsDir, shape, type: 'q8_0' });
  console.log(`  ${model.path}; threads ${threads} on both sides, context ${contextSize}, one request at a time, ${runs} runs\n`);

  const server = await startLlamaServer({ model: model.path, alias: 'bench', threads, parallel: 1, contextSize, startTimeoutMs: TIMEOUT_MS });
  console.log(`llama-server: ${LLAMA_SERVER_BIN} on ${server.baseUrl}`);
  const local = new LlamaCppEngine({
    settings: { modelPath: model.path, gpu: 'off', gpuLayers: 0, parallel: 1, contextSize, threads },
    timeoutMs: TIMEOUT_MS,
  });
  const remote = new OpenAiEngine({ baseUrl: server.baseUrl, model: server.alias, timeoutMs: TIMEOUT_MS, contextTokens: contextSize });
  const gateways: TestGateway[] = [];
  try {
    await Promise.all([local.start(), remote.start()]);
    await readyStatus('local llm', () => local.status(), 0);
    await readyStatus('remote llm', () => remote.status(), 0);
    const signal = new AbortController().signal;

    console.log(`engine: one JSON string of ${chars} characters …`);
    const engine = await interleaved(
      async () => {
        const { stats } = await local.generateJsonWithStats(FIXED, signal);
        return { latencyMs: stats.generationMs, outputTokens: stats.outputTokens };
      },
      async () => {
        const { stats } = await remote.generateJsonWithStats(FIXED, signal);
        return { latencyMs: stats.generationMs, outputTokens: stats.outputTokens };
      },
    );
    report(summary(engine.a), summary(engine.b));
    await Promise.all([local.close(), remote.close()]);
    if (args['skip-http']) return;

    console.log('\nHTTP: POST /ai/v1/speech-process, LLM_BACKEND=local vs openai …');
    const common = { LOG_LEVEL: 'warn', LLM_THREADS: String(threads), LLM_PARALLEL: '1', LLM_CONTEXT_SIZE: String(contextSize), LLM_TIMEOUT_MS: String(TIMEOUT_MS), LLM_GPU: 'off' };
    gateways.push(await startReadyGateway('llm', TIMEOUT_MS, { ...common, LLM_BACKEND: 'local', LLM_MODEL: model.path }));
    gateways.push(await startReadyGateway('llm', TIMEOUT_MS, { ...common, LLM_BACKEND: 'openai', LLM_BASE_URL: server.baseUrl, LLM_MODEL_NAME: server.alias }));
    const post = (gateway: TestGateway) => {
      let run = 0;
      return async (): Promise<Sample> => {
        run++;
        // A distinct voice segment makes a distinct artifact (no cache hit) while the prompt stays the same.
        const payload = { request_id: `bench-${run}`, ...SPEECH_REQUEST, voice_segments: [{ voice_url: `http://voice/${run}.wav`, start_ms: 0, end_ms: 1, text: '合成' }] };
        const started = performance.now();
        const response = await gateway.app.inject({ method: 'POST', url: '/ai/v1/speech-process', payload });
        if (response.statusCode !== 200) throw new Error(`speech-process answered ${response.statusCode}: ${response.body}`);
        return { latencyMs: performance.now() - started, outputTokens: NaN };
      };
    };
    const http = await interleaved(post(gateways[0]!), post(gateways[1]!));
    const [localMs, remoteMs] = [summary(http.a).p50, summary(http.b).p50];
    console.log(`  local p50 ${localMs.toFixed(0)} ms, openai p50 ${remoteMs.toFixed(0)} ms: remote takes ${(remoteMs / localMs).toFixed(3)}× the time (speed ${(localMs / remoteMs).toFixed(3)}×)`);
  } finally {
    await Promise.all([...gateways.map((gateway) => gateway.close()), local.close(), remote.close()]);
    await server.stop('SIGTERM');
  }
}

function report(local: ReturnType<typeof summary>, remote: ReturnType<typeof summary>) {
  console.log(`  in-process: p50 ${local.p50.toFixed(0)} ms, ${local.tokens.toFixed(0)} output tokens, ${local.tps.toFixed(1)} tokens/s`);
  console.log(`  remote:     p50 ${remote.p50.toFixed(0)} ms, ${remote.tokens.toFixed(0)} output tokens, ${remote.tps.toFixed(1)} tokens/s`);
  // Both wrote the same characters; the token counts differ when the two grammars let the model split them differently.
  console.log(`  ratio remote ÷ in-process: latency ${(remote.p50 / local.p50).toFixed(3)} (same ${chars} characters), tokens/s ${(remote.tps / local.tps).toFixed(3)}`);
}

await main();
