/**
 * What only the PostgreSQL store promises: several gateway replicas on one database. Each
 * "replica" here is its own connection pool and store set on the same database.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADVICE_JOB_MIGRATIONS } from '../../../src/operations/report-advice-draft/job-store.js';
import { ARTIFACT_MIGRATIONS, AUDIT_MIGRATIONS, BLOB_MIGRATIONS, SECRET_MIGRATIONS } from '../../../src/platform/store/index.js';
import { postgresMissing, startPostgres, withClient, type TestPostgres } from '../../../scripts/lib/postgres.js';
import { openGatewayStores } from '../../support/store-backends.js';
import { describeWithTools } from '../../support/tools.js';

const openReplica = (url: string) => openGatewayStores('/nonexistent-unused', { url, poolSize: 4 });
type Stores = Awaited<ReturnType<typeof openReplica>>;
const GATEWAY_MIGRATIONS = [...ARTIFACT_MIGRATIONS, ...BLOB_MIGRATIONS, ...SECRET_MIGRATIONS, ...AUDIT_MIGRATIONS, ...ADVICE_JOB_MIGRATIONS];

async function replicas(url: string, count: number): Promise<Stores[]> {
  return Promise.all(Array.from({ length: count }, () => openReplica(url)));
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

describeWithTools('the PostgreSQL store shared by replicas', postgresMissing(), () => {
  let server: TestPostgres;
  const opened: Stores[] = [];
  const start = async (count: number) => {
    const stores = await replicas(await server.createDatabase(), count);
    opened.push(...stores);
    return stores;
  };

  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(opened.map((stores) => stores.close()));
    await server.stop();
  });

  it('migrates once when several replicas start together, and they share one file-link key', async () => {
    const url = await server.createDatabase();
    const [a, b, c] = await replicas(url, 3);
    opened.push(a!, b!, c!);
    const applied = await withClient(url, (client) => client.query("SELECT concept || ' ' || version AS step FROM store_migrations ORDER BY 1"));
    expect(applied.rows.map((row: { step: string }) => row.step)).toEqual(GATEWAY_MIGRATIONS.map((m) => `${m.concept} ${m.version}`).sort());
    const url1 = a!.fileUrls.urlFor('AAAAAAAAAAAAAAAAAAAAAAAA', 60);
    expect(c!.fileUrls.verify(url1.split('/files/')[1]!)).toBe('AAAAAAAAAAAAAAAAAAAAAAAA');
  });

  it('says why it cannot open the database, without the URL', async () => {
    const missing = server.url.replace(/\/postgres$/, '/no_such_database');
    await expect(openReplica(missing)).rejects.toMatchObject({
      kind: 'internal',
      message: 'Could not open the PostgreSQL store (DATABASE_URL): database "no_such_database" does not exist',
    });
  });

  it('refuses a database migrated by a newer gateway', async () => {
    const url = await server.createDatabase();
    opened.push(await openReplica(url));
    await withClient(url, (client) => client.query("INSERT INTO store_migrations VALUES ('blobs', 99, 'future', 'x')"));
    await expect(openReplica(url)).rejects.toMatchObject({ kind: 'internal', message: expect.stringContaining('newer') });
  });

  it('takes over a database of the single-history release with its data', async () => {
    const url = await server.createDatabase();
    await withClient(url, (client) => client.query(OLD_RELEASE_SCHEMA));
    const stores = await openReplica(url);
    opened.push(stores);

    expect((await stores.adviceJobs.find('r1'))?.state).toBe('dead');
    const applied = await withClient(url, (client) => client.query('SELECT COUNT(*)::int AS count FROM store_migrations'));
    expect(applied.rows[0].count).toBe(GATEWAY_MIGRATIONS.length);
    await stores.adviceJobs.submit({ requestId: 'r2', bodySha256: 'a', requestJson: '{}', webhookId: 'msg_r2' }, 2);
    expect((await stores.adviceJobs.find('r2'))?.events.map((e) => e.event)).toEqual(['accepted']);
  });

  it('a produced file stored by one replica is read by another, until it expires', async () => {
    const [a, b] = await start(2);
    const bytes = Buffer.from('%PDF-1.7 de-identified report');
    const meta = await a!.blobs.put(bytes, { contentType: 'application/pdf', ttlSeconds: 60 });
    const expired = await a!.blobs.put(bytes, { contentType: 'image/png', ttlSeconds: 0 });
    expect(await b!.blobs.sweepLeftovers()).toBe(0); // the bytes are the rows': no file to be left without one
    const read = (await b!.blobs.open(meta.key))!;
    expect(read.meta).toEqual(meta);
    expect(await readAll(read.stream)).toEqual(bytes);
    expect(await b!.blobs.open(expired.key)).toBeNull();
    expect(await b!.blobs.open('../etc/passwd')).toBeNull();
    expect(await b!.blobs.sweepExpired()).toBe(1);
    await b!.blobs.delete(meta.key);
    expect(await a!.blobs.open(meta.key)).toBeNull();
  });

  it('an artifact cached by one replica is a hit on another', async () => {
    const [a, b] = await start(2);
    await a!.artifacts.put('speech:abc', { transcript: '右肺' });
    expect((await b!.artifacts.get('speech:abc'))?.value).toEqual({ transcript: '右肺' });
  });

  it('replicas claiming at once never take the same draft or delivery', async () => {
    const stores = await start(3);
    const ids = Array.from({ length: 30 }, (_, i) => `job-${i}`);
    for (const id of ids) await stores[0]!.adviceJobs.submit({ requestId: id, bodySha256: 'a', requestJson: '{}', webhookId: `msg_${id}` }, 1);
    const takeAll = async <T extends { requestId: string }>(claim: (s: Stores) => Promise<T | undefined>) => {
      const taken = await Promise.all(
        stores.map(async (s) => {
          const mine: T[] = [];
          for (let c = await claim(s); c; c = await claim(s)) mine.push(c);
          return mine;
        }),
      );
      return taken.flat();
    };
    const drafts = await takeAll((s) => s.adviceJobs.claimDraft(2, 1_000));
    expect(drafts.map((d) => d.requestId).sort()).toEqual([...ids].sort());
    for (const [i, claim] of drafts.entries()) {
      await stores[i % 3]!.adviceJobs.finishDraft(claim, { outcome: 'succeeded', callbackJson: '{}' }, 3);
    }
    const deliveries = await takeAll((s) => s.adviceJobs.claimDelivery(4, 1_000));
    expect(deliveries.map((d) => d.requestId).sort()).toEqual([...ids].sort());
  });

  it('a draft whose replica died is taken over by another once its lease ends', async () => {
    const [dead, alive] = await start(2);
    await dead!.adviceJobs.submit({ requestId: 'r1', bodySha256: 'a', requestJson: '{}', webhookId: 'msg_r1' }, 1);
    const lost = (await dead!.adviceJobs.claimDraft(1, 100))!;
    expect(await alive!.adviceJobs.claimDraft(99, 200)).toBeUndefined();
    expect(await alive!.adviceJobs.nextDueAt()).toEqual({ draft: 100, delivery: undefined });
    const taken = (await alive!.adviceJobs.claimDraft(100, 200))!;
    expect(taken).toMatchObject({ requestId: 'r1', attempt: 2 });
    expect(await dead!.adviceJobs.finishDraft(lost, { outcome: 'succeeded', callbackJson: '{}' }, 101)).toBe(false);
    const events = (await alive!.adviceJobs.find('r1'))!.events.map((e) => e.event);
    expect(events).toEqual(['accepted', 'draft_started', 'draft_interrupted', 'draft_started']);
  });

  it('a job accepted by one replica wakes the others at once', async () => {
    const [a, b] = await start(2);
    let woken = 0;
    const unsubscribe = (await b!.adviceJobs.subscribe(() => woken++))!;
    await a!.adviceJobs.submit({ requestId: 'r1', bodySha256: 'a', requestJson: '{}', webhookId: 'msg_r1' }, 1);
    await a!.adviceJobs.submit({ requestId: 'r1', bodySha256: 'a', requestJson: '{}', webhookId: 'msg_r1' }, 2);
    await expect.poll(() => woken, { timeout: 5_000 }).toBe(1);
    await unsubscribe();
  });

  it('the same request submitted to two replicas at once is one job', async () => {
    const [a, b] = await start(2);
    const submit = (s: Stores, sha: string) =>
      s.adviceJobs.submit({ requestId: 'same', bodySha256: sha, requestJson: '{}', webhookId: `msg_${sha}` }, 1);
    const results = await Promise.all([submit(a!, 'x'), submit(b!, 'x')]);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(results.find((r) => !r.created)).toEqual({ created: false, sameBody: true });
    expect(await submit(b!, 'y')).toEqual({ created: false, sameBody: false });
  });
});

/** What the release before per-concept migrations left in PostgreSQL (its migrations 1–2). */
const OLD_RELEASE_SCHEMA = `
  CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);
  CREATE TABLE artifacts (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at BIGINT NOT NULL);
  CREATE TABLE blobs (key TEXT PRIMARY KEY, content_type TEXT NOT NULL, size INTEGER NOT NULL, bytes BYTEA NOT NULL,
    created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL);
  CREATE INDEX blobs_expires_at ON blobs (expires_at);
  CREATE TABLE advice_jobs (
    request_id TEXT PRIMARY KEY, body_sha256 TEXT NOT NULL, request_json TEXT, state TEXT NOT NULL, webhook_id TEXT NOT NULL,
    callback_json TEXT, outcome TEXT, error_kind TEXT, error_message TEXT, draft_attempts INTEGER NOT NULL DEFAULT 0,
    delivery_attempts INTEGER NOT NULL DEFAULT 0, next_run_at BIGINT NOT NULL, first_delivery_at BIGINT,
    created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
  CREATE INDEX advice_jobs_due ON advice_jobs (state, next_run_at);
  CREATE TABLE advice_job_events (
    id BIGSERIAL PRIMARY KEY, request_id TEXT NOT NULL REFERENCES advice_jobs (request_id) ON DELETE CASCADE,
    at BIGINT NOT NULL, event TEXT NOT NULL, detail TEXT);
  CREATE INDEX advice_job_events_job ON advice_job_events (request_id, id);
  CREATE TABLE secrets (name TEXT PRIMARY KEY, value BYTEA NOT NULL);
  CREATE INDEX artifacts_created_at ON artifacts (created_at);
  INSERT INTO schema_migrations VALUES (1, 'shared store', 'x'), (2, 'artifacts_created_at', 'x');
  INSERT INTO advice_jobs (request_id, body_sha256, state, webhook_id, next_run_at, created_at, updated_at)
    VALUES ('r1', 'a', 'dead', 'msg_r1', 1, 1, 1);
`;
