import fc from 'fast-check';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/contract/operations.js';
import { ERROR_KINDS, type ErrorKind } from '../../src/errors.js';
import { ECHO_MARKER, FUZZ, hostileBodies } from '../support/contract-fuzz.js';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';

/**
 * Contract fuzzing through the public interface (`npm run fuzz` runs it long): every route gets
 * mutations of a valid request, its example or one generated from its schema (wrong types, missing and extra fields, huge and negative numbers,
 * deep nesting, __proto__/constructor keys, lone surrogates, NUL, RTL marks, 1 MB strings) and
 * bodies that are not JSON. Every answer must be the route's error body, with the status and
 * the retryable of its kind (no engine is installed here, so none may say "retry"), never an
 * `internal` error, never a quote of the request; and nothing may reach Object.prototype.
 */
const requestSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input' }) as Parameters<typeof hostileBodies>[1];

function acceptedByContract(schema: z.ZodType, body: string | Buffer): boolean {
  try {
    return schema.safeParse(JSON.parse(body.toString())).success;
  } catch {
    return false;
  }
}

describe('contract fuzzing: every hostile body gets an honest error', () => {
  let gateway: TestGateway;
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();

  beforeAll(async () => {
    gateway = await startGateway({ LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await gateway.close();
  });

  it.each(Object.values(OPERATIONS))('$path', async (op) => {
    const kinds = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(hostileBodies(op.example.request as Record<string, unknown>, requestSchema(op.request)), async (body) => {
        const response = await gateway.app.inject({
          method: 'POST',
          url: op.path,
          headers: { 'content-type': 'application/json' },
          payload: body,
        });
        // A mutation may leave a body the contract accepts (AI-3 then takes the job): only such a body may succeed.
        if (response.statusCode < 300) return void expect(acceptedByContract(op.request, body)).toBe(true);
        const parsed = op.errorBody.safeParse(response.json());
        expect(parsed.success, response.body.slice(0, 300)).toBe(true);
        const { kind, message, retryable } = (parsed.data as { error: { kind: ErrorKind; message: string; retryable?: boolean } }).error;
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        expect(kind).not.toBe('internal');
        expect(response.statusCode).toBe(ERROR_KINDS[kind].status);
        if (retryable !== undefined) expect(retryable).toBe(ERROR_KINDS[kind].retryable);
        expect(message).not.toContain(ECHO_MARKER);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs, interruptAfterTimeLimit: FUZZ.routeMs, markInterruptAsFailure: false, endOnFailure: true },
    );
    // The mutations reach past the parser: schema violations, and valid bodies refused for want of an engine.
    expect(kinds.get('invalid_request')).toBeGreaterThan(0);
    const health = await gateway.app.inject({ url: '/healthz' });
    expect(health.statusCode).toBe(200);
  }, FUZZ.routeMs + 30_000);
});
