/**
 * Soak: mixed load on all five operations at the limiters' capacity, against a gateway process
 * with the test models (the random-weight LLM and whisper models, PP-OCR with one worker), and
 * what it costs over time.
 *
 *   npm run soak                      30 minutes (SOAK_MINUTES), a sample every 30 s
 *   SOAK_MINUTES=2 npm run soak       a short run
 *
 * Every sample prints the gateway's RSS, each child command's RSS (node: the LLM process;
 * whisper-cli, ffmpeg), the event-loop lag p99 (from /metrics), open file descriptors, entries
 * in the gateway's temp folder, and the answers since the last sample by status and error kind.
 * Exit 1 when, from the first sample after the warm-up (the first quarter) to the last, the
 * gateway's RSS grew more than SOAK_MAX_RSS_GROWTH_MB (200), the LLM process's more than the
 * same, open descriptors more than 32, or when a temp entry made during the load is left once it
 * has stopped (entries there when the gateway became ready, kept by the engines for their life,
 * are not counted).
 */
import { createServer } from 'node:http';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { loadConfig } from '../src/config/index.js';
import { OPERATIONS } from '../src/contract/operations.js';
import { childProcessMemory } from '../src/platform/process/index.js';
import { FAST_ASR_ENV } from './lib/audio.js';
import { buildGateway, startGatewayProcess, untilReady } from './lib/gateway-process.js';
import { ensureTestModel } from './lib/models/make-test-model.js';
import { ensureWhisperTestModel } from './lib/models/whisper-model.js';
import { TEST_MODELS_DIR, fixturePath } from './lib/paths.js';
import { NEUTRAL_GATEWAY_ENV } from './lib/processes.js';
import { webhookSecretFor } from './lib/secrets.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const SAMPLE_MS = Number(process.env.SOAK_SAMPLE_SECONDS ?? (MINUTES <= 5 ? 15 : 30)) * 1000;
const MAX_RSS_GROWTH = Number(process.env.SOAK_MAX_RSS_GROWTH_MB ?? 200) * 1024 * 1024;
const MAX_FD_GROWTH = 32;
const MIB = 1024 * 1024;

const files = {
  '/page.png': await readFile(fixturePath('ocr', 'report2.png')),
  '/report.pdf': await readFile(fixturePath('ocr', 'report1-text.pdf')),
  '/voice.wav': await readFile(fixturePath('audio', 'wenet_aishell-BAC009S0724W0121.wav')),
};
const fileServer = createServer((request, response) => {
  const bytes = files[request.url as keyof typeof files];
  if (bytes) response.end(bytes);
  else response.writeHead(404).end();
});
const callbacks = { received: 0 };
const receiver = createServer((request, response) => {
  request.resume().on('end', () => {
    callbacks.received++;
    response.end('{}');
  });
});
await Promise.all([fileServer, receiver].map((server) => new Promise<void>((done) => server.listen(0, '127.0.0.1', done))));
const portOf = (server: typeof fileServer) => (server.address() as { port: number }).port;
const fileUrl = (path: string) => `http://127.0.0.1:${portOf(fileServer)}${path}`;

const [llmModel, whisperModel] = await Promise.all([
  ensureTestModel({ modelsDir: TEST_MODELS_DIR }),
  ensureWhisperTestModel({ modelsDir: TEST_MODELS_DIR }),
]);
const work = await mkdtemp(join(tmpdir(), 'soak-'));
const gatewayTmp = join(work, 'tmp');
await mkdir(gatewayTmp);
const env: Record<string, string> = {
  ...NEUTRAL_GATEWAY_ENV,
  ...FAST_ASR_ENV,
  HOST: '127.0.0.1',
  DATA_DIR: join(work, 'data'),
  TMPDIR: gatewayTmp,
  MODELS_DIR: TEST_MODELS_DIR,
  LLM_MODEL: basename(llmModel.path),
  LLM_THREADS: '1',
  WHISPER_MODEL: basename(whisperModel.path),
  OCR_ENGINE: 'ppocr',
  OCR_WORKERS: '1',
  OCR_THREADS: '1',
  FETCH_ALLOW_LOOPBACK: 'true',
  CALLBACK_BASE_URL: `http://127.0.0.1:${portOf(receiver)}`,
  CALLBACK_SECRET: webhookSecretFor('soak'),
  LOG_LEVEL: 'warn',
};
const config = loadConfig(env);
buildGateway();
const gateway = await startGatewayProcess(env);
const base = gateway.baseUrl;

// ------------------------------------------------------------------------------------------
// Load: as many clients per operation as its engine runs at once, each sending its next request
// when the last is answered (AI-3: when the last job is finished).
// ------------------------------------------------------------------------------------------

const answers = new Map<string, number>();
let running = true;
let sequence = 0;

async function post(path: string, body: object): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  const kind = (json.error as { kind?: string } | undefined)?.kind;
  const key = `${path.split('/').pop()} ${response.status}${kind ? ` ${kind}` : ''}`;
  answers.set(key, (answers.get(key) ?? 0) + 1);
  return { status: response.status, json };
}

const file = (upload_file_id: number, path: string) => ({ upload_file_id, bucket: 'soak', object_key: path, file_name: path.slice(1), file_url: fileUrl(path) });

const clients: Record<string, { count: number; next: () => Promise<unknown> }> = {
  speech: {
    count: config.llm.maxRunning,
    next: () => {
      const example = OPERATIONS.speechProcess.example.request;
      // A new text each time: a cached answer would cost the LLM nothing.
      return post(OPERATIONS.speechProcess.path, { ...example, request_id: `soak-${++sequence}`, speech_text: `${example.speech_text} (${sequence})` });
    },
  },
  advice: {
    count: 1,
    next: async () => {
      const requestId = `soak-advice-${++sequence}`;
      await post(OPERATIONS.reportAdviceDraft.path, { ...OPERATIONS.reportAdviceDraft.example.request, request_id: requestId });
      for (;;) {
        const job = (await fetch(`${base}${OPERATIONS.reportAdviceDraft.path}/${requestId}`).then((r) => r.json())) as { state?: string };
        if (!job.state || ['delivered', 'dead'].includes(job.state) || !running) return;
        await new Promise((wake) => setTimeout(wake, 500));
      }
    },
  },
  caseOcr: {
    count: config.ocr.maxRunning,
    // A PDF (read in a thread of its own each time) and a scan.
    next: () => post(OPERATIONS.caseOcr.path, { request_id: `soak-${++sequence}`, files: [file(sequence, '/report.pdf'), file(sequence + 1, '/page.png')] }),
  },
  caseFileProcess: {
    count: config.ocr.maxRunning,
    next: () => post(OPERATIONS.caseFileProcess.path, { request_id: `soak-${++sequence}`, files: [file(sequence, '/page.png')] }),
  },
  asr: {
    count: config.asr.maxRunning + 1,
    next: () => post(OPERATIONS.asr.path, { request_id: `soak-${++sequence}`, voice_url: fileUrl('/voice.wav') }),
  },
};

async function client(next: () => Promise<unknown>): Promise<void> {
  while (running) {
    await next().catch((error: unknown) => {
      const key = `client error ${error instanceof Error ? error.message : String(error)}`;
      answers.set(key, (answers.get(key) ?? 0) + 1);
    });
  }
}

// ------------------------------------------------------------------------------------------
// Samples
// ------------------------------------------------------------------------------------------

interface Sample {
  minute: number;
  rss: number;
  children: Record<string, number>;
  lagP99Ms: number;
  fds: number;
  temp: number;
}

async function sample(started: number): Promise<Sample> {
  const pid = gateway.child.pid!;
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const children: Record<string, number> = {};
  for (const child of await childProcessMemory(pid)) children[child.command] = (children[child.command] ?? 0) + child.residentBytes;
  const metrics = await fetch(`${base}/metrics`).then((r) => r.text());
  return {
    minute: (Date.now() - started) / 60_000,
    rss: Number(/^VmRSS:\s*(\d+) kB$/m.exec(status)?.[1] ?? 0) * 1024,
    children,
    lagP99Ms: Number(/^gateway_nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(metrics)?.[1] ?? 0) * 1000,
    fds: (await readdir(`/proc/${pid}/fd`)).length,
    temp: (await readdir(gatewayTmp)).length,
  };
}

function describe(s: Sample): string {
  const children = Object.entries(s.children)
    .map(([command, bytes]) => `${command} ${(bytes / MIB).toFixed(0)}`)
    .join(', ');
  const counts = [...answers].map(([key, n]) => `${key}: ${n}`).join('; ');
  answers.clear();
  return `${s.minute.toFixed(1).padStart(5)} min  rss ${(s.rss / MIB).toFixed(0)} MB  children [${children}] MB  lag p99 ${s.lagP99Ms.toFixed(0)} ms  fds ${s.fds}  temp ${s.temp}  | ${counts}`;
}

let exitCode = 0;
try {
  await untilReady(gateway, 5 * 60_000);
  // What the engines keep for their life (tesseract's language folder, libraries' own files) is not a leak.
  const lifelong = new Set(await readdir(gatewayTmp));
  console.log(`soak: ${MINUTES} min, clients ${Object.entries(clients).map(([name, c]) => `${name}×${c.count}`).join(' ')}, a sample every ${SAMPLE_MS / 1000} s`);
  const started = Date.now();
  const load = Object.values(clients).flatMap(({ count, next }) => Array.from({ length: count }, () => client(next)));
  const samples: Sample[] = [];
  while (Date.now() - started < MINUTES * 60_000) {
    await new Promise((wake) => setTimeout(wake, SAMPLE_MS));
    const s = await sample(started);
    samples.push(s);
    console.log(describe(s));
  }
  running = false;
  await Promise.all(load);
  await new Promise((wake) => setTimeout(wake, 3_000));
  const settled = await sample(started);
  console.log(`${describe(settled)}  (load stopped)`);

  const warm = samples[Math.floor(samples.length / 4)]!;
  const last = samples.at(-1)!;
  const failures: string[] = [];
  console.log(`temp entries the engines keep for their life: ${[...lifelong].join(', ') || 'none'}`);
  if (last.rss - warm.rss > MAX_RSS_GROWTH) failures.push(`gateway RSS grew ${((last.rss - warm.rss) / MIB).toFixed(0)} MB`);
  const llmGrowth = (last.children.node ?? 0) - (warm.children.node ?? 0);
  if (llmGrowth > MAX_RSS_GROWTH) failures.push(`LLM process RSS grew ${(llmGrowth / MIB).toFixed(0)} MB`);
  if (settled.fds - warm.fds > MAX_FD_GROWTH) failures.push(`open descriptors grew from ${warm.fds} to ${settled.fds}`);
  const left = (await readdir(gatewayTmp)).filter((entry) => !lifelong.has(entry));
  if (left.length > 0) failures.push(`temp entries left after the load stopped: ${left.join(', ')}`);
  console.log(`callbacks received: ${callbacks.received}`);
  console.log(failures.length === 0 ? `soak passed: growth within ${MAX_RSS_GROWTH / MIB} MB RSS and ${MAX_FD_GROWTH} fds, no temp file left` : `soak FAILED: ${failures.join('; ')}`);
  // Four checks: gateway RSS, LLM process RSS, descriptors, temp entries; the summary line CI reads.
  console.log(`soak: ${4 - failures.length} passed, ${failures.length} failed`);
  if (failures.length > 0) exitCode = 1;
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  running = false;
  await gateway.stop();
  fileServer.close();
  receiver.close();
  await rm(work, { recursive: true, force: true });
}
process.exit(exitCode);
