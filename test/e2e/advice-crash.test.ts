/**
 * AI-3 crash safety with real processes: the gateway (tiny random-weight model) and the
 * reference receiver, both killed with SIGKILL again and again, before drafting, during
 * drafting and during delivery. At the end every accepted job has exactly one callback
 * stored by the receiver, under one webhook-id: accepted = delivered, zero lost.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureTestModel } from '../../scripts/lib/models/make-test-model.js';
import { adviceGatewayEnv, adviceRequest as body, anyInState, jobState } from '../support/advice-jobs.js';
import { postJson } from '../../scripts/lib/gateway.js';
import { ProcessSet, until } from '../../scripts/lib/processes.js';
import { TEST_MODELS_DIR } from '../../scripts/lib/paths.js';
import { seededRandom } from '../support/random.js';
import { webhookSecretFor } from '../../scripts/lib/secrets.js';

const SECRET = webhookSecretFor('crash');
const JOBS_PER_ROUND = 3;
const random = seededRandom('crash test');
const ROUNDS = ['before drafting', 'during drafting', 'during delivery', 'at a random moment', 'at a random moment'] as const;

let dir: string;
let model: string;
const processes = new ProcessSet();
const start = processes.start.bind(processes);
const kill = processes.kill.bind(processes);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'advice-crash-'));
  model = basename((await ensureTestModel({ modelsDir: TEST_MODELS_DIR })).path);
});

afterAll(async () => {
  await processes.killAll();
  await rm(dir, { recursive: true, force: true });
});

const receiverEnv = (port: number) => ({
  RECEIVER_HOST: '127.0.0.1',
  RECEIVER_PORT: String(port),
  RECEIVER_DATA_DIR: join(dir, 'receiver'),
  CALLBACK_SECRET: SECRET,
});
const gatewayEnv = (port: number, receiverPort: number) => adviceGatewayEnv({ port, dataDir: join(dir, 'gateway'), model, receiverPort, secret: SECRET });
const startReceiver = (port: number) => start('src/receiver/main.ts', receiverEnv(port), 'receiver listening');
const startGateway = (port: number, receiverPort: number) => start('src/main.ts', gatewayEnv(port, receiverPort), 'gateway started');

it(
  'every accepted job ends in exactly one stored callback, through repeated kill -9 of gateway and receiver',
  async () => {
    // Each first listens on a port found free; its restarts after kill -9 take the same port again.
    const firstReceiver = await processes.startOnFreePort('src/receiver/main.ts', receiverEnv, 'receiver listening');
    const firstGateway = await processes.startOnFreePort('src/main.ts', (port) => gatewayEnv(port, firstReceiver.port), 'gateway started');
    const [receiverPort, gatewayPort] = [firstReceiver.port, firstGateway.port];
    let [receiver, gateway] = [firstReceiver.child, firstGateway.child];
    const accepted: string[] = [];

    for (const [round, moment] of ROUNDS.entries()) {
      const ids = Array.from({ length: JOBS_PER_ROUND }, (_, i) => `crash-${round}-${i}`);
      for (const id of ids) {
        const response = await postJson(`http://127.0.0.1:${gatewayPort}/ai/v1/report-advice-draft`, body(id));
        expect(response.status).toBe(202);
        accepted.push(id);
      }
      // Resubmitting an earlier job must not make a second one.
      expect((await postJson(`http://127.0.0.1:${gatewayPort}/ai/v1/report-advice-draft`, body(accepted[0]!))).status).toBe(202);

      if (moment === 'during drafting') expect(await until(() => anyInState(gatewayPort, ids, ['running']), 20_000)).toBe(true);
      if (moment === 'during delivery') {
        await kill(receiver); // deliveries now fail and are retried
        expect(await until(() => anyInState(gatewayPort, ids, ['delivering']), 30_000)).toBe(true);
      }
      if (moment === 'at a random moment') await new Promise((resolve) => setTimeout(resolve, 200 + random() * 1500));
      await kill(gateway);
      if (moment === 'during delivery') receiver = await startReceiver(receiverPort);
      gateway = await startGateway(gatewayPort, receiverPort);
    }

    const allDelivered = await until(async () => {
      for (const id of accepted) if ((await jobState(gatewayPort, id)) !== 'delivered') return false;
      return true;
    }, 120_000);
    expect(allDelivered).toBe(true);
    await kill(gateway);
    await kill(receiver);

    const db = new Database(join(dir, 'receiver', 'receiver.sqlite'), { readonly: true });
    const reports = db.prepare('SELECT request_id, ai_status FROM consultation_report').all() as Array<{ request_id: string; ai_status: string }>;
    const webhookIds = db
      .prepare('SELECT request_id, COUNT(*) AS ids FROM received_callbacks GROUP BY request_id')
      .all() as Array<{ request_id: string; ids: number }>;
    db.close();

    expect(reports.map((r) => r.request_id).sort()).toEqual([...accepted].sort());
    expect(reports.every((r) => r.ai_status === 'succeeded' || r.ai_status === 'failed')).toBe(true);
    // One webhook-id per job: any repeat the receiver saw was a retry of the same callback.
    expect(webhookIds).toHaveLength(accepted.length);
    expect(webhookIds.every((row) => row.ids === 1)).toBe(true);
  },
  240_000,
);
