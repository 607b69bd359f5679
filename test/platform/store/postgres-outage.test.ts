/**
 * The PostgreSQL store while its server restarts: a query that cannot reach it fails with the
 * retryable `store_unavailable` (never a bare driver error), the readiness check says why, and
 * the same pool and the same LISTEN serve again once the server is back, without reopening the
 * stores.
 */
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADVICE_JOB_MIGRATIONS, SqlAdviceJobStore } from '../../../src/operations/report-advice-draft/job-store.js';
import { createLogger } from '../../../src/platform/logger.js';
import { checkStore, openStores, type Stores } from '../../../src/platform/store/index.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../../../scripts/lib/postgres.js';
import { until } from '../../../scripts/lib/processes.js';
import { describeWithTools } from '../../support/tools.js';

describeWithTools('the PostgreSQL store through a server restart', postgresMissing(), () => {
  let server: TestPostgres;
  let stores: Stores;
  let other: Stores;
  const logLines: string[] = [];

  const logTo = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  const open = (url: string, logged: boolean) =>
    openStores({
      dataDir: '/nonexistent-unused',
      publicBaseUrl: 'http://gateway.test',
      database: { url, poolSize: 2 },
      migrations: ADVICE_JOB_MIGRATIONS,
      ...(logged ? { logger: createLogger('info', logTo) } : {}),
    });

  beforeAll(async () => {
    server = await startPostgres();
    const url = await server.createDatabase();
    stores = await open(url, true);
    other = await open(url, false);
  }, 60_000);
  afterAll(async () => {
    await stores?.close();
    await other?.close();
    await server?.stop();
  });

  it('refuses with a retryable store_unavailable while the server is down, says why, and serves again once it is back', async () => {
    await stores.artifacts.put('speech:before', { ok: true });
    expect(await checkStore(stores.database)).toEqual({ state: 'ready' });

    // A connection checked out between two queries of a transaction when the server goes away:
    // its 'error' event must not end the process, and its next query fails as any other.
    let resumeTransaction!: () => void;
    const held = new Promise<void>((resolve) => (resumeTransaction = resolve));
    let firstQueryDone = false;
    const transaction = stores.database.db.transaction().execute(async (trx) => {
      await sql`SELECT 1`.execute(trx);
      firstQueryDone = true;
      await held;
      await sql`SELECT 1`.execute(trx);
    });
    expect(await until(async () => firstQueryDone, 5_000)).toBe(true);

    await server.halt('fast');
    resumeTransaction();
    await expect(transaction).rejects.toMatchObject({ kind: 'store_unavailable' });
    await expect(stores.artifacts.get('speech:before')).rejects.toMatchObject({ kind: 'store_unavailable', status: 503, retryable: true, retryAfterSeconds: 5 });
    await expect(stores.artifacts.put('speech:during', { ok: true })).rejects.toMatchObject({ kind: 'store_unavailable' });
    const down = await checkStore(stores.database);
    expect(down).toEqual({ state: 'unavailable', reason: expect.stringContaining('ECONNREFUSED') });
    expect(JSON.stringify(down)).not.toContain('gateway@');

    await server.resume();
    expect((await stores.artifacts.get('speech:before'))?.value).toEqual({ ok: true });
    expect(await checkStore(stores.database)).toEqual({ state: 'ready' });
  }, 60_000);

  it('reopens a broken LISTEN connection, says it broke and that it is back, and wakes the listener for what it missed', async () => {
    const jobs = new SqlAdviceJobStore(stores.database);
    let woken = 0;
    const unsubscribe = (await jobs.subscribe(() => woken++))!;
    expect(stores.database.listening()).toEqual([{ channel: expect.any(String), connected: true }]);

    await server.halt('immediate'); // a crash: no goodbye on the connection
    expect(await until(async () => !stores.database.listening()[0]!.connected, 10_000)).toBe(true);
    expect(logLines.some((line) => line.includes('store notifications lost'))).toBe(true);
    await server.resume();
    expect(await until(async () => stores.database.listening()[0]!.connected, 15_000)).toBe(true);
    expect(logLines.some((line) => line.includes('store notifications restored'))).toBe(true);
    expect(woken).toBe(1); // the catch-up call after reopening

    // A job accepted by another replica wakes this one again, as before the restart.
    await new SqlAdviceJobStore(other.database).submit({ requestId: 'after', bodySha256: 'a', requestJson: '{}', webhookId: 'msg_after' }, 1);
    expect(await until(async () => woken === 2, 5_000)).toBe(true);
    await unsubscribe();
    expect(stores.database.listening()).toEqual([]);
  }, 60_000);
});
