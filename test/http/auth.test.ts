import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchingToken } from '../../src/http/auth.js';
import { createHash } from 'node:crypto';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { OPERATION_PATHS, VALID_BODIES } from '../support/valid-bodies.js';

describe('with API_TOKENS set', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway({ API_TOKENS: 'first-token, second-token' });
  });
  afterAll(() => gateway.close());

  const post = (path: string, authorization?: string) =>
    gateway.app.inject({
      method: 'POST',
      url: path,
      payload: VALID_BODIES[path as keyof typeof VALID_BODIES],
      headers: authorization ? { authorization } : {},
    });

  it.each(OPERATION_PATHS)('%s refuses a request without a token with 401 and WWW-Authenticate', async (path) => {
    const response = await post(path);
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.json().error.kind).toBe('unauthorized');
  });

  it.each(['Bearer wrong-token', 'Bearer first-token-and-more', 'Basic Zmlyc3QtdG9rZW4=', 'first-token', 'Bearer '])(
    'refuses the header %j',
    async (header) => {
      expect((await post('/ai/v1/asr', header)).statusCode).toBe(401);
    },
  );

  it.each(['Bearer first-token', 'Bearer second-token', 'bearer second-token'])('accepts %j', async (header) => {
    const response = await post('/ai/v1/asr', header);
    expect(response.json().error.kind).toBe('engine_unavailable');
  });

  it('AI-3 answers 401 with kind and message only', async () => {
    const response = await post('/ai/v1/report-advice-draft');
    expect(response.statusCode).toBe(401);
    expect(Object.keys(response.json().error).sort()).toEqual(['kind', 'message']);
  });

  it('leaves health, readiness, metrics and docs open for probes', async () => {
    for (const url of ['/healthz', '/readyz', '/metrics', '/docs/json']) {
      expect((await gateway.app.inject({ url })).statusCode).toBe(200);
    }
  });
});

describe('without API_TOKENS', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterAll(() => gateway.close());

  it('serves /ai/ routes without a token', async () => {
    const response = await gateway.app.inject({ method: 'POST', url: '/ai/v1/asr', payload: VALID_BODIES['/ai/v1/asr'] });
    expect(response.json().error.kind).toBe('engine_unavailable');
  });
});

describe('matchingToken', () => {
  const digests = ['alpha', 'beta'].map((t) => createHash('sha256').update(t).digest());
  it('finds which configured token was presented, and nothing else', () => {
    expect(matchingToken('alpha', digests)).toBe(0);
    expect(matchingToken('beta', digests)).toBe(1);
    expect(matchingToken('alph', digests)).toBe(-1);
    expect(matchingToken('', digests)).toBe(-1);
  });
});
