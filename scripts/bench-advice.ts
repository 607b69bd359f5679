/**
 * AI-3 under load: N report-advice-draft submissions at once against a real model, delivered to
 * the reference receiver over HTTP with signed callbacks.
 *
 *   npm run bench:advice                               (tiny random-weight model, 25 jobs)
 *   npm run bench:advice -- --jobs 40 --shape qwen2.5-0.5b --threads 2 --parallel 2
 *   npm run bench:advice -- --store postgres --replicas 3 --skip-engine
 *
 * --store postgres runs the gateway on PostgreSQL (DATABASE_URL): the one given with
 * --database-url, or a throwaway server the test harness starts (Debian's postgresql package),
 * committing to disk like SQLite's synchronous=FULL.
 * --replicas N (PostgreSQL only) starts N gateways on that database, each with its own LLM
 * process and the same --threads/--parallel, and spreads the submissions over them in turn.
 *
 * Prints submit latency (the 202 must not wait for the model), time from acceptance to the
 * stored callback, jobs per minute, and lost jobs (must be 0). Then the same drafts' model calls
 * straight on the engine (same messages, schema, token budget and concurrency, no store, queue,
 * HTTP or callback), so the ratio shows what the job machinery costs.
 *
 * A random-weight model writes no usable advice, so its drafts end as `failed` callbacks after
 * one full generation each (ADVICE_DRAFT_ATTEMPTS=1): the timings are real, the words are not.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config/index.js';
import { createLlmEngine } from '../src/engines/llm/index.js';
import { ADVICE_JOB_STATES, type AdviceJobStatus, type ReportAdviceDraftRequest } from '../src/contract/advice.js';
import { adviceAnswer, adviceMessages, answerTokenBudget, departmentNames } from '../src/operations/report-advice-draft/prompts.js';
import { languageOf } from '../src/operations/report-advice-draft/draft.js';
import { createLogger } from '../src/platform/logger.js';
import { buildReceiverApp } from '../src/receiver/app.js';
import { openReceiverDatabase } from '../src/receiver/store.js';
import { postJson, startLlmGateway } from './lib/gateway.js';
import { ensureTestModel, SHAPES, type ShapeName } from './lib/models/make-test-model.js';
import { TEST_MODELS_DIR } from './lib/paths.js';
import { startPostgres } from './lib/postgres.js';
import { readyStatus } from '../src/engines/readiness.js';
import { percentile } from './lib/stats.js';
import { webhookSecretFor } from './lib/secrets.js';

const { values: args } = parseArgs({
  options: {
    shape: { type: 'string', default: 'tiny' },
    jobs: { type: 'string', default: '25' },
    threads: { type: 'string', default: String(availableParallelism()) },
    parallel: { type: 'string', default: '2' },
    store: { type: 'string', default: 'sqlite' },
    replicas: { type: 'string', default: '1' },
    'database-url': { type: 'string' },
    'skip-engine': { type: 'boolean', default: false },
  },
});
const replicaCount = Number(args.replicas);
if (args.store !== 'sqlite' && args.store !== 'postgres') throw new Error('--store is sqlite or postgres');
if (replicaCount > 1 && args.store !== 'postgres') throw new Error('--replicas above 1 needs --store postgres');
const shape = args.shape as ShapeName;
if (!(shape in SHAPES)) throw new Error(`unknown --shape ${shape}; known: ${Object.keys(SHAPES).join(', ')}`);
const jobs = Number(args.jobs);
const SECRET = webhookSecretFor('bench-advice');
const SEQUENTIAL_SUBMITS = 5;

/** Synthetic consultation (no patient data). */
const request = (requestId: string): ReportAdviceDraftRequest => ({
  request_id: requestId,
  cancer_type: '肺癌',
  case_summary: { diagnosis: '右肺上叶腺癌 cT2aN2M0 IIIA期，EGFR 19del 突变', key_question: '是否手术，术前治疗方案？' },
  dept_opinions: [
    { dept: '胸外科', content: '纵隔淋巴结阳性，建议先行新辅助治疗，复查后评估手术。', supplements: [{ doctor: '张医生', content: '建议完善PET-CT和EBUS。' }] },
    { dept: '肿瘤内科', content: 'EGFR敏感突变，可考虑奥希替尼新辅助靶向治疗。', supplements: [] },
    { dept: '放疗科', content: '如不手术，可行根治性同步放化疗。', supplements: [{ doctor: '李医生', content: '需评估肺功能。' }] },
  ],
});

const ms = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} ms`;

async function startReceiver(): Promise<{ url: string; reports(): number; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-advice-receiver-'));
  const db = await openReceiverDatabase(dir);
  const app = await buildReceiverApp({ db, secret: SECRET, toleranceSeconds: 300, allowUnsigned: false, logger: createLogger('warn') });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const count = db.prepare('SELECT COUNT(*) FROM consultation_report').pluck();
  return {
    url,
    reports: () => count.get() as number,
    close: async () => {
      await app.close();
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function statusOf(app: FastifyInstance, requestId: string): Promise<AdviceJobStatus> {
  const response = await app.inject({ method: 'GET', url: `/ai/v1/report-advice-draft/${requestId}` });
  return response.json<AdviceJobStatus>();
}

/** The PostgreSQL the gateways share: --database-url, or a throwaway server; undefined for SQLite. */
async function sharedDatabase(): Promise<{ url: string; stop(): Promise<void> } | undefined> {
  if (args.store !== 'postgres') return undefined;
  if (args['database-url']) return { url: args['database-url'], stop: async () => undefined };
  const server = await startPostgres({ durable: true });
  return { url: await server.createDatabase(), stop: () => server.stop() };
}

async function throughGateway(modelPath: string) {
  const receiver = await startReceiver();
  const database = await sharedDatabase();
  const env = {
    CALLBACK_BASE_URL: receiver.url,
    CALLBACK_SECRET: SECRET,
    LLM_THREADS: args.threads,
    LLM_PARALLEL: args.parallel,
    ADVICE_MAX_RUNNING: args.parallel,
    ADVICE_DRAFT_ATTEMPTS: '1',
    LOG_LEVEL: 'error',
    ...(database ? { DATABASE_URL: database.url } : {}),
  };
  const gateways = await Promise.all(Array.from({ length: replicaCount }, () => startLlmGateway(modelPath, env)));
  const gateway = gateways[0]!;
  try {
    const bases = await Promise.all(gateways.map((replica) => replica.app.listen({ host: '127.0.0.1', port: 0 })));
    let turn = 0;
    const submit = async (id: string) => {
      const t = performance.now();
      const response = await postJson(`${bases[turn++ % bases.length]}/ai/v1/report-advice-draft`, request(id));
      if (response.status !== 202) throw new Error(`submission answered ${response.status}: ${response.body}`);
      return performance.now() - t;
    };
    const ids = Array.from({ length: jobs }, (_, i) => `bench-${i}`);
    const startedAt = Date.now();
    // One at a time first (a platform sending jobs as they come), then the rest all at once.
    const alone: number[] = [];
    for (const id of ids.slice(0, SEQUENTIAL_SUBMITS)) alone.push(await submit(id));
    const burst = await Promise.all(ids.slice(SEQUENTIAL_SUBMITS).map(submit));
    const deadline = Date.now() + 60 * 60_000;
    while (receiver.reports() < jobs && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const wallMs = Date.now() - startedAt;
    const statuses = await Promise.all(ids.map((id) => statusOf(gateway.app, id)));
    const toCallback = statuses.map((s) => {
      const delivered = s.history.find((e) => e.event === 'delivered');
      return delivered ? Date.parse(delivered.at) - Date.parse(s.accepted_at) : NaN;
    });
    const states = Object.fromEntries(ADVICE_JOB_STATES.map((state) => [state, statuses.filter((s) => s.state === state).length]));
    return { alone, burst, toCallback, wallMs, states, outcomes: statuses.map((s) => s.outcome), stored: receiver.reports() };
  } finally {
    await Promise.all(gateways.map((replica) => replica.close()));
    await receiver.close();
    await database?.stop();
  }
}

/** The same model calls on the engine alone: same messages, schema, budget and concurrency. */
async function onEngineAlone(modelPath: string): Promise<number> {
  const config = loadConfig({ LLM_THREADS: args.threads, LLM_PARALLEL: args.parallel, LLM_GPU: 'off' });
  const engine = createLlmEngine(config, modelPath, undefined, createLogger('warn'));
  await engine.start();
  await readyStatus('llm', () => engine.status(), 10 * 60_000);
  try {
    const sample = request('engine');
    const call = {
      messages: adviceMessages(sample, languageOf(sample)),
      schema: adviceAnswer(departmentNames(sample)),
      maxTokens: answerTokenBudget(departmentNames(sample)),
    };
    const startedAt = Date.now();
    let next = 0;
    const worker = async () => {
      while (next++ < jobs) await engine.generateJson(call, new AbortController().signal);
    };
    await Promise.all(Array.from({ length: Number(args.parallel) }, worker));
    return Date.now() - startedAt;
  } finally {
    await engine.close();
  }
}

async function main(): Promise<void> {
  const model = await ensureTestModel({ modelsDir: TEST_MODELS_DIR, shape });
  console.log(
    `model ${model.path} (${shape}), ${jobs} jobs, threads ${args.threads}, parallel ${args.parallel}, ` +
      `store ${args.store}, ${replicaCount} replica(s)\n`,
  );
  const gateway = await throughGateway(model.path);
  const engineMs = args['skip-engine'] ? undefined : await onEngineAlone(model.path);
  const perMinute = (wall: number) => (jobs / wall) * 60_000;
  const lost = jobs - gateway.stored;
  const succeeded = gateway.outcomes.filter((o) => o === 'succeeded').length;

  const latency = (values: number[]) => `p50 ${ms(percentile(values, 0.5))}  p99 ${ms(percentile(values, 0.99))}  max ${ms(Math.max(...values))}`;
  console.log(`submit (202) alone         ${latency(gateway.alone)}  (${gateway.alone.length} one at a time, drafts running)`);
  console.log(`submit (202) all at once   ${latency(gateway.burst)}  (${gateway.burst.length} together)`);
  console.log(`to callback        p50 ${ms(percentile(gateway.toCallback, 0.5))}  p99 ${ms(percentile(gateway.toCallback, 0.99))}`);
  console.log(`states             ${JSON.stringify(gateway.states)}  (drafts succeeded ${succeeded}, failed ${jobs - succeeded})`);
  console.log(`stored by receiver ${gateway.stored}/${jobs}, lost ${lost}`);
  console.log('');
  const baseline = engineMs === undefined ? '' : `   engine alone ${perMinute(engineMs).toFixed(1)}   ratio ${(engineMs / gateway.wallMs).toFixed(2)}`;
  console.log(`jobs/minute        gateway ${perMinute(gateway.wallMs).toFixed(1)}${baseline}`);
  if (lost > 0) process.exitCode = 1;
}

await main();
