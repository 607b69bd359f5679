/**
 * Two gateway replicas on one real PostgreSQL under mixed load (AI-3 submissions and AI-1&2
 * calls on the tiny model, to both replicas), while PostgreSQL is restarted twice: once at once
 * (fast shutdown) and once crashed (immediate shutdown) and held down for 20 s. What must hold:
 * - a call the database could not serve is answered 503 `store_unavailable` (retryable, with
 *   Retry-After), never a 500; every call sent while it is down is answered so;
 * - a submission refused that way was not accepted: sent again afterwards, as a client would, it
 *   is one job; no accepted job is lost or delivered under two webhook-ids;
 * - the replicas recover by themselves, without a restart: /readyz, the pool, the LISTEN
 *   connection, the job runners.
 * The figures (outages, refusals, recovery times, jobs) are printed at the end.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adviceGatewayEnv, adviceRequest, jobState } from '../support/advice-jobs.js';
import { postJson, type PlainResponse } from '../../scripts/lib/gateway.js';
import { VALID_BODIES } from '../support/valid-bodies.js';
import { ensureTestModel } from '../../scripts/lib/models/make-test-model.js';
import { TEST_MODELS_DIR } from '../../scripts/lib/paths.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../../scripts/lib/postgres.js';
import { ProcessSet, until } from '../../scripts/lib/processes.js';
import { webhookSecretFor } from '../../scripts/lib/secrets.js';
import { describeWithTools } from '../support/tools.js';

const SECRET = webhookSecretFor('postgres-restart');
const REPLICAS = 2;
/** The long outage: PostgreSQL crashed and held down this long. */
const HELD_DOWN_MS = 20_000;
/** Load pacing per replica (a client's rhythm, not synchronisation): AI-3 submissions, AI-1&2 calls. */
const SUBMIT_EVERY_MS = 2_000;
/** AI-3 jobs accepted before the first restart, and more between the two. */
const ACCEPTED_BEFORE = 6;
const ACCEPTED_BETWEEN = 4;
const CALL_EVERY_MS = 150;
/**
 * AI-1&2 texts in rotation, computed by the model before the first restart: every later call
 * needs the database (its cache) and nothing slower, so its answer times the store alone.
 */
const SPEECH_VARIANTS = 2;
const RECOVER_WITHIN_MS = 20_000;

interface Outcome {
  operation: 'speech-process' | 'report-advice-draft';
  replica: number;
  sentAt: number;
  answeredAt: number;
  status: number;
  kind?: string;
  retryable?: boolean;
  retryAfter?: string;
}

interface Outage {
  mode: 'fast' | 'immediate';
  /** When the server had exited, when it was being started again, and when it was seen accepting connections. */
  downAt: number;
  startingAt: number;
  upAt: number;
}

let dir: string;
let model: string;
let postgres: TestPostgres;
const processes = new ProcessSet();
const url = (port: number, path: string) => `http://127.0.0.1:${port}${path}`;
/** A client's rhythm or the outage's length; never a wait for something to happen. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The gateway's log lines that matter here, with when each was seen. */
function watchLog(child: ChildProcess, seen: Array<{ at: number; line: string }>): void {
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (/store notifications|unexpected fault|internal error/.test(line)) seen.push({ at: Date.now(), line });
    }
  });
}

function errorOf(response: PlainResponse): { kind?: string; retryable?: boolean } {
  try {
    return (JSON.parse(response.body) as { error?: { kind?: string; retryable?: boolean } }).error ?? {};
  } catch {
    return {};
  }
}

interface Load {
  outcomes: Outcome[];
  /** AI-3 request_ids answered 202, and those refused (to be sent again). */
  accepted: Set<string>;
  refused: string[];
  stop(): Promise<void>;
}

/** Clients on every replica: one submits AI-3 jobs, one calls AI-1&2 with `speechBody(n)`; every answer is kept. */
function startLoad(ports: number[], speechBody: (n: number) => object): Load {
  const outcomes: Outcome[] = [];
  const accepted = new Set<string>();
  const refused: string[] = [];
  let running = true;
  const send = async (operation: Outcome['operation'], replica: number, body: unknown): Promise<Outcome> => {
    const sentAt = Date.now();
    const dropped: PlainResponse = { status: 0, headers: {}, body: '' };
    const response = await postJson(url(ports[replica]!, `/ai/v1/${operation}`), body).catch(() => dropped);
    const { kind, retryable } = errorOf(response);
    const retryAfter = response.headers['retry-after'];
    const outcome: Outcome = {
      operation,
      replica,
      sentAt,
      answeredAt: Date.now(),
      status: response.status,
      ...(kind === undefined ? {} : { kind }),
      ...(retryable === undefined ? {} : { retryable }),
      ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
    };
    outcomes.push(outcome);
    return outcome;
  };
  const submitter = async (replica: number) => {
    for (let n = 0; running; n++) {
      const id = `restart-${replica}-${n}`;
      const { status } = await send('report-advice-draft', replica, adviceRequest(id));
      if (status === 202) accepted.add(id);
      else refused.push(id);
      await pause(SUBMIT_EVERY_MS);
    }
  };
  const caller = async (replica: number) => {
    for (let n = 0; running; n++) {
      await send('speech-process', replica, { ...speechBody(n), request_id: `sync-${replica}-${n}` });
      await pause(CALL_EVERY_MS);
    }
  };
  const clients = Promise.all(ports.flatMap((_, replica) => [submitter(replica), caller(replica)]));
  return {
    outcomes,
    accepted,
    refused,
    async stop() {
      running = false;
      await clients;
    },
  };
}

describeWithTools('replicas through PostgreSQL restarts under load', postgresMissing(), () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pg-restart-'));
    model = basename((await ensureTestModel({ modelsDir: TEST_MODELS_DIR })).path);
    // Durable as in production: a 202 is a committed job, which a crash of the server must not lose.
    postgres = await startPostgres({ durable: true });
  }, 120_000);

  afterAll(async () => {
    await processes.killAll();
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it(
    'answers 503 store_unavailable while the database is away, loses no accepted job, and recovers without a restart',
    async () => {
      const databaseUrl = await postgres.createDatabase();
      let receiverRepeats = 0;
      const receiver = await processes.startOnFreePort(
        'src/receiver/main.ts',
        (port) => ({ RECEIVER_HOST: '127.0.0.1', RECEIVER_PORT: String(port), RECEIVER_DATA_DIR: join(dir, 'receiver'), CALLBACK_SECRET: SECRET }),
        'receiver listening',
      );
      receiver.child.stdout!.on('data', (chunk: Buffer) => (receiverRepeats += chunk.toString('utf8').split('"outcome":"duplicate"').length - 1));
      const started = await Promise.all(
        Array.from({ length: REPLICAS }, (_, index) =>
          processes.startOnFreePort(
            'src/main.ts',
            (port) => ({
              ...adviceGatewayEnv({ port, dataDir: join(dir, `replica-${index}`), model, receiverPort: receiver.port, secret: SECRET }),
              DATABASE_URL: databaseUrl,
              DATABASE_POOL_SIZE: '4',
              ADVICE_LEASE_MS: '2000',
              // A draft of the random-weight model ends (often as a failed callback) within this.
              ADVICE_TIMEOUT_MS: '5000',
              CALLBACK_TIMEOUT_MS: '2000',
            }),
            'gateway started',
          ),
        ),
      );
      const ports = started.map(({ port }) => port);
      const logs = started.map(({ child }) => {
        const seen: Array<{ at: number; line: string }> = [];
        watchLog(child, seen);
        return seen;
      });
      const readiness = async (port: number) => {
        const response = await fetch(url(port, '/readyz'));
        return { status: response.status, store: ((await response.json()) as { store: { state: string; reason?: string } }).store };
      };
      const allReady = async () => (await Promise.all(ports.map(readiness))).every(({ status }) => status === 200);
      expect(await until(allReady, 120_000)).toBe(true);

      const speech = VALID_BODIES['/ai/v1/speech-process'];
      const speechVariant = (n: number) => ({ ...speech, speech_text: `${speech.speech_text}${n % SPEECH_VARIANTS}` });
      for (let n = 0; n < SPEECH_VARIANTS; n++) expect((await postJson(url(ports[n % REPLICAS]!, '/ai/v1/speech-process'), speechVariant(n))).status).toBe(200);

      // Per replica one client submitting AI-3 jobs and one calling AI-1&2, each at its own rhythm.
      const load = startLoad(ports, speechVariant);
      const { outcomes, accepted, refused } = load;
      const answeredAfter = (since: number, operation: Outcome['operation'], status: number) => (replica: number) =>
        outcomes.some((o) => o.replica === replica && o.operation === operation && o.sentAt > since && o.status === status);

      /** After PostgreSQL is back: when every replica is ready again, has served a call, and listens again. */
      const recovery = async (downAt: number, upAt: number) => {
        const at = async (condition: () => Promise<boolean>) => ((await until(condition, RECOVER_WITHIN_MS)) ? Date.now() - upAt : Number.NaN);
        const [ready, served, listening] = await Promise.all([
          at(allReady),
          at(async () => ports.every((_, replica) => answeredAfter(upAt, 'speech-process', 200)(replica))),
          at(async () => logs.every((seen) => seen.some(({ at, line }) => at >= downAt && line.includes('store notifications restored')))),
        ]);
        return { ready, served, listening };
      };

      const outages: Outage[] = [];
      const restart = async (mode: Outage['mode'], heldMs: number) => {
        await postgres.halt(mode);
        const downAt = Date.now();
        if (heldMs > 0) {
          // While it is away: every replica says why it is not ready, and still answers /metrics.
          const storeAway = async () =>
            (await Promise.all(ports.map(readiness))).every(({ status, store }) => status === 503 && store.state === 'unavailable' && /ECONNREFUSED/.test(store.reason ?? ''));
          expect(await until(storeAway, 10_000)).toBe(true);
          const metrics = await Promise.all(ports.map(async (port) => (await fetch(url(port, '/metrics'))).text()));
          for (const text of metrics) expect(text).toMatch(/^gateway_store_listen_connected\{channel="[^"]+"\} 0$/m);
          await pause(downAt + heldMs - Date.now());
        }
        const startingAt = Date.now();
        await postgres.resume();
        const outage = { mode, downAt, startingAt, upAt: Date.now() };
        outages.push(outage);
        return { ...outage, recovered: await recovery(downAt, outage.upAt) };
      };

      // Load on a healthy database first, so jobs are drafted and delivered when it goes away.
      expect(await until(async () => accepted.size >= ACCEPTED_BEFORE, 60_000)).toBe(true);
      const restarted = await restart('fast', 0);
      expect(await until(async () => accepted.size >= ACCEPTED_BEFORE + ACCEPTED_BETWEEN, 60_000)).toBe(true);
      const crashed = await restart('immediate', HELD_DOWN_MS);
      // A little load on the recovered database, then the clients stop.
      const resumedAt = Date.now();
      expect(await until(async () => ports.every((_, replica) => answeredAfter(resumedAt, 'report-advice-draft', 202)(replica)), 30_000)).toBe(true);
      await load.stop();

      // A client sends a refused submission again; it is accepted now, as one job.
      for (const id of refused) {
        const again = await postJson(url(ports[0]!, '/ai/v1/report-advice-draft'), adviceRequest(id));
        expect(again.status).toBe(202);
        accepted.add(id);
      }
      const waiting = new Set(accepted);
      const allDelivered = await until(async () => {
        for (const id of waiting) if ((await jobState(ports[1]!, id)) === 'delivered') waiting.delete(id);
        return waiting.size === 0;
      }, 120_000);
      const exits = started.map(({ child }) => child.exitCode ?? child.signalCode);
      await processes.killAll();

      const db = new Database(join(dir, 'receiver', 'receiver.sqlite'), { readonly: true });
      const reports = db.prepare('SELECT request_id FROM consultation_report').all() as Array<{ request_id: string }>;
      const webhookIds = db.prepare('SELECT request_id, COUNT(*) AS ids FROM received_callbacks GROUP BY request_id').all() as Array<{
        request_id: string;
        ids: number;
      }>;
      db.close();

      // Calls sent after the server exited and answered before it was started again.
      const during = (outage: Outage) => outcomes.filter((o) => o.sentAt >= outage.downAt && o.answeredAt <= outage.startingAt);
      const refusedWhile = (outage: Outage) =>
        outcomes.filter((o) => o.sentAt >= outage.downAt && o.sentAt <= outage.upAt && o.status === 503 && o.kind === 'store_unavailable').length;
      const figures = [restarted, crashed].map((outage) => ({
        mode: outage.mode,
        down_ms: outage.upAt - outage.downAt,
        calls_sent_while_down: outcomes.filter((o) => o.sentAt >= outage.downAt && o.sentAt <= outage.upAt).length,
        answered_503_store_unavailable: refusedWhile(outage),
        recovered_ms_after_up: outage.recovered,
      }));
      const answers = new Map<string, number>();
      for (const o of outcomes) {
        const key = `${o.operation} ${o.status}${o.kind ? ` ${o.kind}` : ''}`;
        answers.set(key, (answers.get(key) ?? 0) + 1);
      }
      const faults = logs.flat().filter(({ line }) => /unexpected fault|internal error/.test(line));
      process.stdout.write(
        `postgres restart test: ${JSON.stringify(figures)}\n` +
          `  calls: ${[...answers].map(([key, count]) => `${key}: ${count}`).join(', ')}\n` +
          `  AI-3: ${accepted.size} accepted (${refused.length} of them refused during an outage and sent again), ${reports.length} delivered, ` +
          `${webhookIds.filter((row) => row.ids > 1).length} under a second webhook-id, ${receiverRepeats} repeated POSTs dropped by the receiver\n` +
          `  replicas: exits ${JSON.stringify(exits)}, ${faults.length} unexpected faults or internal errors logged\n`,
      );

      // Every answer is a success or an honest, retryable refusal; none is a 500 or a dropped connection.
      for (const outcome of outcomes) {
        if (outcome.status === 200 || outcome.status === 202) continue;
        expect(outcome).toMatchObject({ status: 503, kind: 'store_unavailable', retryAfter: '5' });
        if (outcome.operation === 'speech-process') expect(outcome.retryable).toBe(true);
      }
      // Every call sent while the database was away was refused so, and each outage saw some.
      for (const outage of outages) {
        expect(during(outage).every((o) => o.status === 503 && o.kind === 'store_unavailable')).toBe(true);
      }
      expect(during(outages[1]!).length, 'calls sent during the 20 s outage').toBeGreaterThan(10);
      // Recovered by themselves: ready again, serving, and listening again.
      for (const { recovered } of [restarted, crashed]) {
        for (const ms of Object.values(recovered)) expect(ms).toBeLessThan(RECOVER_WITHIN_MS);
      }
      expect(exits).toEqual(ports.map(() => null));
      expect(faults.map(({ line }) => line)).toEqual([]);
      // No accepted job lost, none delivered under two webhook-ids.
      expect(reports.map((r) => r.request_id).sort()).toEqual([...accepted].sort());
      expect(allDelivered).toBe(true);
      expect(webhookIds).toHaveLength(accepted.size);
      expect(webhookIds.every((row) => row.ids === 1)).toBe(true);
    },
    300_000,
  );
});
