/**
 * HTTP overhead of the gateway against a bare fastify route, side by side in one run.
 *
 *   npm run bench:http                  (BENCH_SECONDS=10 per measured run, default)
 *   BENCH_SECONDS=5 npm run bench:http
 *
 * Each server runs in its own child process (this file, started with `--serve <target>`) so the
 * load generator in this process never shares an event loop with the server it measures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/platform/logger.js';

// ---------------------------------------------------------------------------------------------
// Servers (child side)
// ---------------------------------------------------------------------------------------------

const TARGETS = ['bare', 'gateway-silent', 'gateway-info'] as const;
type Target = (typeof TARGETS)[number];

const BENCH_TOKEN = 'bench-token-0123456789';
const ASR_PATH = '/ai/v1/asr';

function buildBareApp(): FastifyInstance {
  const app = Fastify();
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.post(ASR_PATH, async (_request, reply) =>
    reply.code(503).send({ error: { kind: 'engine_unavailable', message: 'the asr engine is unavailable', retryable: false } }),
  );
  return app;
}

/** The real gateway with an API token set, so /ai/ requests pass the bearer auth hook. */
async function buildGateway(logLevel: 'silent' | 'info', dataDir: string): Promise<FastifyInstance> {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: logLevel, PORT: '0', API_TOKENS: `bench=${BENCH_TOKEN}` });
  const logger = createLogger(config.server.logLevel, pino.destination('/dev/null'));
  return buildApp({ config, logger });
}

function buildTarget(target: Target, dataDir: string | undefined): Promise<FastifyInstance> | FastifyInstance {
  if (target === 'bare') return buildBareApp();
  if (!dataDir) throw new Error(`--data-dir is required for ${target}`);
  return buildGateway(target === 'gateway-silent' ? 'silent' : 'info', dataDir);
}

/** Listens on a free port, announces it on stdout, and exits when the parent goes away (stdin closes). */
async function serve(target: Target, dataDir: string | undefined): Promise<void> {
  const app = await buildTarget(target, dataDir);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no TCP address');
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
  process.stdin.on('close', () => process.exit(0)).resume();
}

// ---------------------------------------------------------------------------------------------
// Load generator (parent side)
// ---------------------------------------------------------------------------------------------

interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  warmup: { duration: number };
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

interface AutocannonResult {
  requests: { average: number };
  non2xx: number;
  errors: number;
  statusCodeStats: Record<string, { count: number }>;
}

/** A running load test: resolves with the result; emits one 'response' per reply of the measured run. */
interface AutocannonRun extends PromiseLike<AutocannonResult> {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, responseTimeMs: number) => void): this;
}

/** autocannon ships no types; this is the slice of its promise API the bench uses. */
const autocannon = createRequire(import.meta.url)('autocannon') as (options: AutocannonOptions) => AutocannonRun;

const CONNECTIONS = 10;
const WARMUP_SECONDS = 2;
const STARTUP_TIMEOUT_MS = 30_000;

interface Scenario {
  name: string;
  path: string;
  expectedStatus: number;
  request: Pick<AutocannonOptions, 'method' | 'headers' | 'body'>;
}

const SCENARIOS: Scenario[] = [
  { name: 'GET /healthz', path: '/healthz', expectedStatus: 200, request: { method: 'GET' } },
  {
    name: `POST ${ASR_PATH}`,
    path: ASR_PATH,
    expectedStatus: 503,
    request: {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_TOKEN}` },
      body: JSON.stringify({ request_id: 'bench-1', voice_url: 'http://127.0.0.1:9/a.wav' }),
    },
  },
];

interface Server {
  target: Target;
  port: number;
  child: ChildProcess;
  dataDir: string | undefined;
}

interface Measurement {
  scenario: Scenario;
  target: Target;
  result: AutocannonResult;
  latencyMs: { p50: number; p99: number };
}

function readPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not announce its port in time')), STARTUP_TIMEOUT_MS);
    child.once('exit', (code) => reject(new Error(`server exited with code ${code} before listening`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      const { port } = JSON.parse(line) as { port?: unknown };
      if (typeof port === 'number') resolve(port);
      else reject(new Error(`server announced no port: ${line}`));
    });
  });
}

async function startServer(target: Target): Promise<Server> {
  const dataDir = target === 'bare' ? undefined : mkdtempSync(join(tmpdir(), 'bench-http-'));
  const args = ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve', target];
  if (dataDir) args.push('--data-dir', dataDir);
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const server: Server = { target, port: 0, child, dataDir };
  try {
    server.port = await readPort(child);
    return server;
  } catch (error) {
    await stopServer(server);
    throw error;
  }
}

async function stopServer(server: Server): Promise<void> {
  const { child } = server;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  if (server.dataDir) rmSync(server.dataDir, { recursive: true, force: true });
}

/** Nearest-rank percentile of ascending values. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/**
 * One warm-up run (discarded) then the measured run. Latencies come from autocannon's response
 * events: its own histogram keeps whole milliseconds, too coarse for sub-millisecond routes.
 */
async function measure(server: Server, scenario: Scenario, seconds: number): Promise<Measurement> {
  process.stderr.write(`  ${scenario.name} on ${server.target}...\n`);
  const latencies: number[] = [];
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}${scenario.path}`,
    connections: CONNECTIONS,
    duration: seconds,
    warmup: { duration: WARMUP_SECONDS },
    ...scenario.request,
  }).on('response', (_client, _status, _bytes, responseTimeMs) => latencies.push(responseTimeMs));
  latencies.sort((a, b) => a - b);
  const latencyMs = { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  return { scenario, target: server.target, result, latencyMs };
}

/** Why a run cannot be trusted: transport errors or any status other than the expected one. */
function problemsOf({ scenario, target, result }: Measurement): string[] {
  const problems: string[] = [];
  if (result.errors > 0) problems.push(`${result.errors} errors`);
  const unexpected = Object.keys(result.statusCodeStats).filter((status) => Number(status) !== scenario.expectedStatus);
  if (unexpected.length > 0) problems.push(`unexpected status ${unexpected.join(', ')} (expected ${scenario.expectedStatus})`);
  return problems.map((problem) => `${scenario.name} on ${target}: ${problem}`);
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

const ratio = (value: number, base: number) => (base > 0 ? `${(value / base).toFixed(2)}x` : 'n/a');

function tableRow(measurement: Measurement, bare: Measurement | undefined): string[] {
  const { result, latencyMs } = measurement;
  const isGateway = measurement.target !== 'bare' && bare !== undefined;
  return [
    measurement.scenario.name,
    measurement.target,
    result.requests.average.toFixed(0),
    latencyMs.p50.toFixed(3),
    latencyMs.p99.toFixed(3),
    String(result.non2xx),
    isGateway ? ratio(result.requests.average, bare.result.requests.average) : '',
    isGateway ? ratio(latencyMs.p99, bare.latencyMs.p99) : '',
  ];
}

function formatTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n');
}

function printReport(measurements: Measurement[], seconds: number): void {
  const header = ['scenario', 'target', 'req/s', 'p50 ms', 'p99 ms', 'non2xx', 'req/s vs bare', 'p99 vs bare'];
  const rows = measurements.map((measurement) => {
    const bare = measurements.find((m) => m.scenario === measurement.scenario && m.target === 'bare');
    return tableRow(measurement, bare);
  });
  console.log(`\n${CONNECTIONS} connections, ${seconds} s per run after a ${WARMUP_SECONDS} s warm-up\n`);
  console.log(formatTable([header, ...rows]));
}

function printEnvironment(): void {
  console.log(`node ${process.version}`);
  console.log(`cpu  ${cpus()[0]?.model ?? 'unknown'} x ${availableParallelism()}`);
}

function benchSeconds(): number {
  const seconds = Number(process.env.BENCH_SECONDS ?? '10');
  if (!Number.isInteger(seconds) || seconds <= 0) throw new Error('BENCH_SECONDS must be a positive integer');
  return seconds;
}

async function bench(): Promise<void> {
  const seconds = benchSeconds();
  printEnvironment();
  const servers: Server[] = [];
  try {
    for (const target of TARGETS) servers.push(await startServer(target));
    const measurements: Measurement[] = [];
    for (const scenario of SCENARIOS) {
      for (const server of servers) measurements.push(await measure(server, scenario, seconds));
    }
    printReport(measurements, seconds);
    const problems = measurements.flatMap(problemsOf);
    for (const problem of problems) console.error(`FAILED ${problem}`);
    if (problems.length > 0) process.exitCode = 1;
  } finally {
    await Promise.all(servers.map(stopServer));
  }
}

// ---------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------

const { values } = parseArgs({ options: { serve: { type: 'string' }, 'data-dir': { type: 'string' } } });
const serveTarget = values.serve;
const main = async () => {
  if (serveTarget === undefined) return bench();
  if (!(TARGETS as readonly string[]).includes(serveTarget)) throw new Error(`unknown --serve target: ${serveTarget}`);
  return serve(serveTarget as Target, values['data-dir']);
};

main().catch((error: unknown) => {
  console.error(`bench-http failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
