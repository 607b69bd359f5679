/**
 * Closed unless configured (issue 27 item 1), through the public interface: client tokens reach
 * /ai/v1 only; the console API, AI-3 job views and redelivery, /metrics and the detailed /readyz
 * need an operator token; a bare readiness answer stays open for load balancers; and the real
 * entry point refuses to start open on the network or with a malformed callback secret.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { Authenticator, matchingToken } from '../../src/http/auth.js';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { NEUTRAL_GATEWAY_ENV, spawnFromSource, waitForLine } from '../../scripts/lib/processes.js';
import { OPERATION_PATHS, VALID_BODIES } from '../support/valid-bodies.js';

const CLIENT = 'client-token-0123456789';
const SECOND_CLIENT = 'second-client-token-0123456789';
const OPERATOR = 'operator-token-0123456789';
const TOKENS = { API_TOKENS: `platform=${CLIENT}, his=${SECOND_CLIENT}`, OPERATOR_TOKENS: `it-desk=${OPERATOR}` };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const JOB = '/ai/v1/report-advice-draft/req-unknown';

/** The routes only an operator token reaches, each with what an operator gets from it here. */
const OPERATOR_ROUTES = [
  { method: 'GET', url: '/console/api/status', operatorStatus: 200 },
  { method: 'POST', url: '/console/api/uploads', operatorStatus: 201, upload: Buffer.from('%PDF-1.4 x') },
  { method: 'GET', url: JOB, operatorStatus: 404 },
  { method: 'POST', url: `${JOB}/redeliver`, operatorStatus: 404 },
  { method: 'GET', url: '/console/api/audit', operatorStatus: 200 },
  { method: 'GET', url: '/metrics', operatorStatus: 200 },
] as const;

describe('with client and operator tokens', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway(TOKENS);
  });
  afterAll(() => gateway.close());

  const post = (path: string, authorization?: string) =>
    gateway.app.inject({
      method: 'POST',
      url: path,
      payload: VALID_BODIES[path as keyof typeof VALID_BODIES],
      headers: authorization ? { authorization } : {},
    });
  const call = (route: (typeof OPERATOR_ROUTES)[number], headers: Record<string, string> = {}) =>
    gateway.app.inject({
      method: route.method,
      url: route.url,
      ...('upload' in route ? { payload: route.upload, headers: { ...headers, 'content-type': 'application/octet-stream' } } : { headers }),
    });

  it.each(OPERATION_PATHS)('%s refuses a request without a token with 401 and WWW-Authenticate', async (path) => {
    const response = await post(path);
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.json().error.kind).toBe('unauthorized');
  });

  it.each(['Bearer wrong-token', `Bearer ${CLIENT}-and-more`, `Basic ${Buffer.from(CLIENT).toString('base64')}`, CLIENT, 'Bearer ', 'Bearer platform'])(
    'refuses the header %j',
    async (header) => {
      expect((await post('/ai/v1/asr', header)).statusCode).toBe(401);
    },
  );

  it.each([`Bearer ${CLIENT}`, `Bearer ${SECOND_CLIENT}`, `bearer ${SECOND_CLIENT}`, `Bearer ${OPERATOR}`])('/ai/v1 accepts %j', async (header) => {
    const response = await post('/ai/v1/asr', header);
    expect(response.json().error.kind).toBe('engine_unavailable');
  });

  it('AI-3 answers 401 with kind and message only', async () => {
    const response = await post('/ai/v1/report-advice-draft');
    expect(response.statusCode).toBe(401);
    expect(Object.keys(response.json().error).sort()).toEqual(['kind', 'message']);
  });

  it.each(OPERATOR_ROUTES)('a client token gets 403 forbidden from $method $url, no token 401', async (route) => {
    const client = await call(route, bearer(CLIENT));
    expect(client.statusCode).toBe(403);
    expect(client.json().error).toMatchObject({ kind: 'forbidden', message: expect.stringContaining('OPERATOR_TOKENS') });
    expect((await call(route)).statusCode).toBe(401);
    expect((await call(route, bearer('wrong-token-0123456789'))).statusCode).toBe(401);
  });

  it.each(OPERATOR_ROUTES)('an operator token reaches $method $url', async (route) => {
    expect((await call(route, bearer(OPERATOR))).statusCode).toBe(route.operatorStatus);
  });

  it('AI-3 job views refuse a client token in the AI-3 error shape', async () => {
    const response = await gateway.app.inject({ method: 'GET', url: JOB, headers: bearer(CLIENT) });
    expect(Object.keys(response.json().error).sort()).toEqual(['kind', 'message']);
  });

  it('answers a probe without a token with readiness alone: no engines, models, hashes or reasons', async () => {
    const response = await gateway.app.inject({ url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready' });
  });

  it('shows the detailed /readyz to an operator token only', async () => {
    const detailed = await gateway.app.inject({ url: '/readyz', headers: bearer(OPERATOR) });
    expect(detailed.json()).toMatchObject({ status: 'ready', engines: { llm: { state: 'unavailable' } } });
    expect((await gateway.app.inject({ url: '/readyz', headers: bearer(CLIENT) })).statusCode).toBe(403);
    expect((await gateway.app.inject({ url: '/readyz', headers: bearer('wrong-token-0123456789') })).statusCode).toBe(401);
  });

  it('leaves liveness, the API description and the console page open', async () => {
    for (const url of ['/healthz', '/docs/json', '/console']) {
      expect((await gateway.app.inject({ url })).statusCode).toBe(200);
    }
  });
});

describe('with client tokens and no operator token', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway({ API_TOKENS: TOKENS.API_TOKENS });
  });
  afterAll(() => gateway.close());

  it.each(OPERATOR_ROUTES)('closes $method $url to every token', async (route) => {
    const response = await gateway.app.inject({ method: route.method, url: route.url, headers: bearer(CLIENT) });
    expect(response.statusCode).toBe(403);
    expect((await gateway.app.inject({ method: route.method, url: route.url })).statusCode).toBe(401);
  });

  it('still answers a probe', async () => {
    expect((await gateway.app.inject({ url: '/readyz' })).json()).toEqual({ status: 'ready' });
  });
});

describe('without any token, on loopback', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterAll(() => gateway.close());

  it('serves every route without a token, the detailed /readyz included', async () => {
    const response = await gateway.app.inject({ method: 'POST', url: '/ai/v1/asr', payload: VALID_BODIES['/ai/v1/asr'] });
    expect(response.json().error.kind).toBe('engine_unavailable');
    expect((await gateway.app.inject({ url: '/console/api/status' })).statusCode).toBe(200);
    expect((await gateway.app.inject({ url: '/metrics' })).statusCode).toBe(200);
    expect((await gateway.app.inject({ url: '/readyz' })).json()).toHaveProperty('engines');
  });
});

describe('the caller as the audit trail names it', () => {
  const authenticator = new Authenticator({
    open: false,
    tokens: [
      { name: 'platform', token: CLIENT, role: 'client', unnamed: false },
      { name: 'it-desk', token: OPERATOR, role: 'operator', unnamed: false },
    ],
  });
  const request = (token: string) => ({ headers: bearer(token) }) as unknown as FastifyRequest;

  it("is the matched token's configured name, never the token", () => {
    const operator = request(OPERATOR);
    authenticator.authorize(operator, 'client');
    expect(operator.callerName).toBe('it-desk');
    const client = request(CLIENT);
    authenticator.authorize(client, 'client');
    expect(client.callerName).toBe('platform');
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

/** The real entry point, run until it exits (or until `until` appears on stdout, then stopped). */
async function runGateway(env: Record<string, string>, until?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'auth-start-'));
  const child: ChildProcess = spawnFromSource('src/main.ts', { ...NEUTRAL_GATEWAY_ENV, LOG_LEVEL: 'info', PORT: '0', DATA_DIR: dataDir, ...env });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  try {
    if (until !== undefined) {
      await waitForLine(child, until);
      child.kill('SIGTERM');
    }
    return { code: await closed, stdout, stderr };
  } finally {
    child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  }
}

describe('the gateway process refuses to start open or unsigned', () => {
  it('refuses to start with no tokens on a non-loopback address, naming API_TOKENS, before it listens', async () => {
    const { code, stdout, stderr } = await runGateway({ HOST: '0.0.0.0' });
    expect(code).toBe(78);
    expect(stderr).toMatch(/API_TOKENS: required when HOST \(0\.0\.0\.0\) is not a loopback address/);
    expect(stdout).not.toContain('gateway started');
  }, 60_000);

  it.each([
    ['a secret that is not in the whsec_ form', { CALLBACK_SECRET: 'plain-text-secret-0123456789' }, /CALLBACK_SECRET: must start with whsec_/],
    ['a whsec_ secret of 9 bytes', { CALLBACK_SECRET: 'whsec_MfKQ9r8GKYqr' }, /CALLBACK_SECRET: decodes to 9 bytes/],
    ['no secret', {}, /CALLBACK_SECRET: required with CALLBACK_BASE_URL/],
  ])('refuses to start with CALLBACK_BASE_URL and %s, saying how to make one', async (_case, env, message) => {
    const { code, stderr } = await runGateway({ HOST: '127.0.0.1', CALLBACK_BASE_URL: 'http://127.0.0.1:9', ...env });
    expect(code).toBe(78);
    expect(stderr).toMatch(message);
    expect(stderr).toContain('openssl rand -base64 32');
    expect(stderr).not.toContain('plain-text-secret');
  }, 60_000);

  it('starts open on the network only with ALLOW_OPEN_ACCESS=true, and says so at start', async () => {
    const { stdout } = await runGateway({ HOST: '0.0.0.0', ALLOW_OPEN_ACCESS: 'true' }, 'gateway started');
    expect(stdout).toMatch(/ALLOW_OPEN_ACCESS=true and no tokens: .* are open to anyone who reaches 0\.0\.0\.0/);
  }, 60_000);
});
