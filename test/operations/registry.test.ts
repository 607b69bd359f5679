/**
 * Adding an operation: its contract, its folder (here, this file) and one line in the list the
 * gateway serves. Nothing in platform/, http/ or app.ts names it.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { errorBody } from '../../src/contract/errors.js';
import type { OperationContract } from '../../src/contract/operations.js';
import { GATEWAY_OPERATIONS, type Operation } from '../../src/operations/index.js';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';

const echoRequest = z.object({ request_id: z.string().min(1), text: z.string().min(1).max(100) });
const echoResponse = z.object({ request_id: z.string(), text: z.string(), times_seen: z.number().int() });

const echoContract: OperationContract<typeof echoRequest, typeof echoResponse, 'echo'> = {
  id: 'echo',
  operationId: 'echo',
  label: 'echo',
  path: '/ai/v1/echo',
  summary: 'Answers the text it was sent, and how often it was sent it',
  successStatus: 200,
  request: echoRequest,
  response: echoResponse,
  errorBody,
  example: { request: { request_id: 'r1', text: 'hello' }, response: { request_id: 'r1', text: 'hello', times_seen: 1 } },
};

type EchoTables = { echo_seen: { text: string; times: number } };

const echoOperation: Operation<typeof echoRequest> = {
  contract: echoContract,
  migrations: [
    {
      concept: 'echo',
      version: 1,
      name: 'echo_seen',
      up: (db) => db.schema.createTable('echo_seen').addColumn('text', 'text', (col) => col.primaryKey()).addColumn('times', 'integer').execute(),
    },
  ],
  start: ({ stores }) => {
    const db: Kysely<EchoTables> = stores.database.db.withTables<EchoTables>();
    return {
      handle: async (request) => {
        await db
          .insertInto('echo_seen')
          .values({ text: request.text, times: 1 })
          .onConflict((conflict) => conflict.column('text').doUpdateSet({ times: sql`echo_seen.times + 1` }))
          .execute();
        const { times } = await db.selectFrom('echo_seen').select('times').where('text', '=', request.text).executeTakeFirstOrThrow();
        return { request_id: request.request_id, text: request.text, times_seen: times };
      },
    };
  },
};

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startGateway({}, { operations: [...GATEWAY_OPERATIONS, echoOperation] });
});
afterAll(() => gateway.close());

const post = (url: string, payload: object) => gateway.app.inject({ method: 'POST', url, payload });

it('serves an operation registered beside the gateway\'s own, with its own table migrated', async () => {
  expect((await post('/ai/v1/echo', { request_id: 'r1', text: 'hello' })).json()).toEqual({ request_id: 'r1', text: 'hello', times_seen: 1 });
  expect((await post('/ai/v1/echo', { request_id: 'r2', text: 'hello' })).json()).toEqual({ request_id: 'r2', text: 'hello', times_seen: 2 });
});

it('validates its requests and answers its errors in the shape its contract gives', async () => {
  const invalid = await post('/ai/v1/echo', { request_id: 'r3', text: '' });
  expect(invalid.statusCode).toBe(400);
  expect(invalid.json()).toEqual({ error: { kind: 'invalid_request', message: expect.stringContaining('text'), retryable: false } });
});

it("keeps each of the gateway's operations in its own error shape", async () => {
  const unknownJob = await gateway.app.inject({ method: 'GET', url: '/ai/v1/report-advice-draft/no-such-job' });
  expect(unknownJob.statusCode).toBe(404);
  expect(unknownJob.json()).toEqual({ error: { kind: 'not_found', message: expect.any(String) } });
  const invalidSpeech = await post('/ai/v1/speech-process', {});
  expect(invalidSpeech.json()).toMatchObject({ error: { kind: 'invalid_request', retryable: false } });
});
