/**
 * Three gateway processes on one real PostgreSQL (DATABASE_URL), the reference receiver as the
 * callback target. AI-3 jobs are submitted to every replica in turn, resubmitted and contradicted
 * on other replicas, and replicas are killed with SIGKILL while drafting and while delivering
 * (and restarted): every accepted job ends with exactly one stored callback under one
 * webhook-id. speech-process repeated on another replica is answered from the shared cache, and
 * a de-identified file produced by one replica is served by every replica. Only replica 0 runs
 * the OCR engine (on a 2-core CI machine three PP-OCR workers would starve the LLMs); serving a
 * produced file needs no engine.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adviceGatewayEnv, adviceRequest, anyInState, jobState } from '../support/advice-jobs.js';
import { startFileServer, fileReference, type FileServer } from '../../scripts/lib/file-server.js';
import { postJson } from '../../scripts/lib/gateway.js';
import { VALID_BODIES } from '../support/valid-bodies.js';
import { ensureTestModel } from '../../scripts/lib/models/make-test-model.js';
import { fixturePath, TEST_MODELS_DIR } from '../../scripts/lib/paths.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../../scripts/lib/postgres.js';
import { ProcessSet, until } from '../../scripts/lib/processes.js';
import { describeWithTools } from '../support/tools.js';
import { seededRandom } from '../support/random.js';
import { webhookSecretFor } from '../../scripts/lib/secrets.js';

const SECRET = webhookSecretFor('replicas');
const REPLICAS = 3;
const JOBS_PER_ROUND = 6;
const ROUNDS = ['during drafting', 'during delivery', 'at a random moment'] as const;
const DEID_FILE = 'discharge-en-contact.png';

interface JobStatus {
  delivery_attempts: number;
  history: Array<{ event: string }>;
}

let dir: string;
let model: string;
let postgres: TestPostgres;
let files: FileServer;
const processes = new ProcessSet();

const random = seededRandom('replica test');
const anyOf = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const url = (port: number, path: string) => `http://127.0.0.1:${port}${path}`;

describeWithTools('three gateway replicas on one PostgreSQL', postgresMissing(), () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'replicas-'));
    model = basename((await ensureTestModel({ modelsDir: TEST_MODELS_DIR })).path);
    postgres = await startPostgres();
    const deidBytes = await readFile(fixturePath('deid', DEID_FILE));
    files = await startFileServer((_request, response) => response.end(deidBytes));
  }, 120_000);

  afterAll(async () => {
    await processes.killAll();
    await files?.close();
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it(
    'every accepted job is delivered once per webhook-id through kill -9 of replicas; cache and files are shared',
    async () => {
      const databaseUrl = await postgres.createDatabase();
      let receiverRepeats = 0;
      const receiverEnv = (port: number) => ({ RECEIVER_HOST: '127.0.0.1', RECEIVER_PORT: String(port), RECEIVER_DATA_DIR: join(dir, 'receiver'), CALLBACK_SECRET: SECRET });
      const countingRepeats = (receiver: ChildProcess) => {
        receiver.stdout!.on('data', (chunk: Buffer) => (receiverRepeats += chunk.toString('utf8').split('"outcome":"duplicate"').length - 1));
        return receiver;
      };
      const replicaEnv = (index: number, port: number, receiverPort: number) => ({
        ...adviceGatewayEnv({ port, dataDir: join(dir, `replica-${index}`), model, receiverPort, secret: SECRET }),
        DATABASE_URL: databaseUrl,
        DATABASE_POOL_SIZE: '4',
        ADVICE_LEASE_MS: '2000',
        CALLBACK_TIMEOUT_MS: '2000',
        ...(index === 0 ? { OCR_ENGINE: 'ppocr', OCR_WORKERS: '1', OCR_THREADS: '1', FETCH_ALLOW_LOOPBACK: 'true' } : {}),
      });

      // Each first listens on a port found free; its restarts after kill -9 take the same port again.
      const firstReceiver = await processes.startOnFreePort('src/receiver/main.ts', receiverEnv, 'receiver listening');
      const receiverPort = firstReceiver.port;
      let receiver = countingRepeats(firstReceiver.child);
      const startReceiver = async () => countingRepeats(await processes.start('src/receiver/main.ts', receiverEnv(receiverPort), 'receiver listening'));
      const firstReplicas = await Promise.all(
        Array.from({ length: REPLICAS }, (_, index) => processes.startOnFreePort('src/main.ts', (port) => replicaEnv(index, port, receiverPort), 'gateway started')),
      );
      const ports = firstReplicas.map((replica) => replica.port);
      const replicas: ChildProcess[] = firstReplicas.map((replica) => replica.child);
      const startReplica = (index: number) => processes.start('src/main.ts', replicaEnv(index, ports[index]!, receiverPort), 'gateway started');
      const ready = (port: number) => until(async () => (await fetch(url(port, '/readyz'))).ok, 120_000);
      expect(await Promise.all(ports.map(ready))).toEqual(ports.map(() => true));

      // AI-1&2: the result one replica computed is the others' cache hit.
      const speech = VALID_BODIES['/ai/v1/speech-process'];
      const first = await postJson(url(ports[1]!, '/ai/v1/speech-process'), speech);
      expect(first.status).toBe(200);
      for (const port of [ports[2]!, ports[0]!]) {
        const again = await postJson(url(port, '/ai/v1/speech-process'), { ...speech, request_id: `cache-${port}` });
        expect(JSON.parse(again.body)).toMatchObject({ from_cache: true, artifact_key: JSON.parse(first.body).artifact_key });
      }

      // AI-4 on replica 0 (the one with OCR): its produced file, fetched later from every replica.
      const deid = await postJson(url(ports[0]!, '/ai/v1/case-file-process'), { request_id: 'deid-1', files: [fileReference(files, 1, DEID_FILE)] });
      expect(deid.status).toBe(200);
      const links = (JSON.parse(deid.body) as { results: Array<{ desensitized_url: string | null }> }).results
        .map((result) => result.desensitized_url)
        .filter((link): link is string => link !== null);
      expect(links).toHaveLength(1);

      // AI-3 with kill -9 of replicas while drafting and delivering.
      const accepted: string[] = [];
      let kills = 0;
      const live = () => ports.filter((_, index) => replicas[index]!.exitCode === null && replicas[index]!.signalCode === null);
      for (const [round, moment] of ROUNDS.entries()) {
        const ids = Array.from({ length: JOBS_PER_ROUND }, (_, i) => `replica-${round}-${i}`);
        for (const [i, id] of ids.entries()) {
          const response = await postJson(url(ports[i % REPLICAS]!, '/ai/v1/report-advice-draft'), adviceRequest(id));
          expect(response.status).toBe(202);
          accepted.push(id);
        }
        // The same request on another replica is the same job; another body under its id is a conflict.
        const earlier = accepted[round * 2]!;
        expect((await postJson(url(ports[(round + 1) % REPLICAS]!, '/ai/v1/report-advice-draft'), adviceRequest(earlier))).status).toBe(202);
        const conflicting = { ...adviceRequest(earlier), cancer_type: '胃癌' };
        expect((await postJson(url(ports[(round + 2) % REPLICAS]!, '/ai/v1/report-advice-draft'), conflicting)).status).toBe(409);

        if (moment === 'during drafting') expect(await until(() => anyInState(ports[0]!, ids, ['running']), 30_000)).toBe(true);
        if (moment === 'during delivery') {
          await processes.kill(receiver); // deliveries now fail and are retried
          expect(await until(() => anyInState(ports[1]!, ids, ['delivering']), 60_000)).toBe(true);
        }
        if (moment === 'at a random moment') await new Promise((resolve) => setTimeout(resolve, 200 + random() * 1500));
        // Two of three die at once: the survivor (and the restarted) must take over their leases.
        const victims = [...ports.keys()].sort(() => random() - 0.5).slice(0, 2);
        await Promise.all(victims.map((index) => processes.kill(replicas[index]!)));
        kills += victims.length;
        if (moment === 'during delivery') receiver = await startReceiver();
        const restarted = await Promise.all(victims.map((index) => startReplica(index)));
        for (const [i, index] of victims.entries()) replicas[index] = restarted[i]!;
      }

      const allDelivered = await until(async () => {
        for (const id of accepted) if ((await jobState(anyOf(live()), id)) !== 'delivered') return false;
        return true;
      }, 120_000);
      expect(allDelivered).toBe(true);

      // Every produced file, from every replica (two of them restarted since it was made).
      for (const link of links) {
        for (const port of ports) {
          const response = await fetch(url(port, new URL(link).pathname));
          expect(response.status).toBe(200);
          expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
        }
      }

      const histories = await Promise.all(
        accepted.map(async (id) => (await (await fetch(url(ports[0]!, `/ai/v1/report-advice-draft/${id}`))).json()) as JobStatus),
      );
      const takenOver = histories.filter((job) => job.history.some((entry) => entry.event === 'draft_interrupted')).length;
      const resent = histories.filter((job) => job.delivery_attempts > 1).length;
      await processes.killAll();
      const db = new Database(join(dir, 'receiver', 'receiver.sqlite'), { readonly: true });
      const reports = db.prepare('SELECT request_id, ai_status FROM consultation_report').all() as Array<{ request_id: string; ai_status: string }>;
      const webhookIds = db.prepare('SELECT request_id, COUNT(*) AS ids FROM received_callbacks GROUP BY request_id').all() as Array<{
        request_id: string;
        ids: number;
      }>;
      db.close();
      process.stdout.write(
        `replica test: ${accepted.length} jobs accepted, ${reports.length} delivered, ` +
          `${webhookIds.filter((row) => row.ids > 1).length} with a second webhook-id, ${receiverRepeats} repeated POSTs dropped by the receiver, ${kills} replica kills, ` +
          `${takenOver} drafts taken over after a lease ended, ${resent} callbacks sent more than once\n`,
      );
      expect(reports.map((r) => r.request_id).sort()).toEqual([...accepted].sort());
      expect(reports.every((r) => r.ai_status === 'succeeded' || r.ai_status === 'failed')).toBe(true);
      // Replicas died while drafting: a lease ran out and another replica took the draft over.
      expect(takenOver, 'drafts taken over after a lease ended').toBeGreaterThanOrEqual(1);
      expect(webhookIds).toHaveLength(accepted.length);
      expect(webhookIds.every((row) => row.ids === 1)).toBe(true);
    },
    300_000,
  );
});
