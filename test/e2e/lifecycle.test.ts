/**
 * The real process, started from source the way production starts dist/main.js: configuration
 * errors, startup without models, and the signal-driven drain with its deadline.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { fileReference, startFileServer } from '../../scripts/lib/file-server.js';
import { VALID_BODIES } from '../support/valid-bodies.js';
import { fixturePath } from '../../scripts/lib/paths.js';
import { NEUTRAL_GATEWAY_ENV, onFreePort, spawnFromSource, unusedPort } from '../../scripts/lib/processes.js';

const READY_WITHIN_MS = 15_000;
/** Pages of the TIFF being read when the drain deadline passes: far more than any machine reads by then. */
const DRAIN_PAGES = 16;

interface Gateway {
  child: ChildProcess;
  port: number;
  stdout: () => string;
  stderr: () => string;
  /** stdout parsed as pino's JSON lines (non-JSON lines are skipped). */
  logs: () => Array<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

afterEach(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit').catch(() => undefined);
    }
  }
  children.clear();
  await Promise.all([...tempDirs].map((dir) => rm(dir, { recursive: true, force: true })));
  tempDirs.clear();
});

/** Spawns `node --import tsx src/main.ts` on `port` and a fresh data dir, with no models configured. */
async function spawnGateway(port: number, env: Record<string, string> = {}): Promise<Gateway> {
  const dataDir = await mkdtemp(join(tmpdir(), 'gateway-e2e-data-'));
  const modelsDir = await mkdtemp(join(tmpdir(), 'gateway-e2e-models-'));
  tempDirs.add(dataDir).add(modelsDir);
  const child = spawnFromSource('src/main.ts', {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    MODELS_DIR: modelsDir,
    LOG_LEVEL: 'info',
    SHUTDOWN_TIMEOUT_MS: '5000',
    ...NEUTRAL_GATEWAY_ENV,
    ...env,
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // 'close' rather than 'exit': by then both pipes are drained, so every log line is in.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('close', (code, signal) => done({ code, signal })),
  );
  return {
    child,
    port,
    stdout: () => stdout,
    stderr: () => stderr,
    logs: () =>
      stdout
        .split('\n')
        .filter(Boolean)
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Record<string, unknown>];
          } catch {
            return [];
          }
        }),
    exited,
  };
}

interface Answer {
  status: number;
  body: string;
}

/** One GET over a fresh connection that is closed afterwards (no pooled keep-alive socket to hold the drain). */
function get(port: number, path: string): Promise<Answer> {
  return new Promise((done, fail) => {
    const request = httpRequest({ host: '127.0.0.1', port, path, agent: false, timeout: 2_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => done({ status: response.statusCode ?? 0, body }));
      response.on('error', fail);
    });
    request.on('timeout', () => request.destroy(new Error('request timed out')));
    request.on('error', fail);
    request.end();
  });
}

function post(port: number, path: string, payload: unknown): Promise<Answer> {
  const body = JSON.stringify(payload);
  return new Promise((done, fail) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent: false,
        timeout: 5_000,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => done({ status: response.statusCode ?? 0, body: text }));
        response.on('error', fail);
      },
    );
    request.on('timeout', () => request.destroy(new Error('request timed out')));
    request.on('error', fail);
    request.end(body);
  });
}

async function waitUntilHealthy(gateway: Gateway): Promise<void> {
  const deadline = Date.now() + READY_WITHIN_MS;
  while (Date.now() < deadline) {
    if (gateway.child.exitCode !== null || gateway.child.signalCode !== null) {
      await gateway.exited; // its output all in: it says why (EADDRINUSE, when its port was taken)
      throw new Error(`the gateway exited before it was healthy:\n${gateway.stderr()}\n${gateway.stdout()}`);
    }
    try {
      if ((await get(gateway.port, '/healthz')).status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  throw new Error(`the gateway was not healthy within ${READY_WITHIN_MS} ms:\n${gateway.stderr()}\n${gateway.stdout()}`);
}

/** A gateway answering /healthz, on a free port (on another when it found its port taken). */
function startHealthy(env: Record<string, string> = {}): Promise<Gateway> {
  return onFreePort(async (port) => {
    const gateway = await spawnGateway(port, env);
    await waitUntilHealthy(gateway);
    return gateway;
  });
}

/** Rejects when the child has not exited within ms. */
async function exitWithin(gateway: Gateway, ms: number) {
  const timer = sleep(ms).then(() => {
    throw new Error(`the gateway did not exit within ${ms} ms; log:\n${gateway.stdout()}\n${gateway.stderr()}`);
  });
  return Promise.race([gateway.exited, timer]);
}

/** Resolves with the error code of a refused connection, or 'connected' when something accepted it. */
function tryConnect(port: number): Promise<string> {
  return new Promise((done) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      done('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}

function openSocket(port: number): Promise<Socket> {
  return new Promise((done, fail) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => done(socket));
    socket.once('error', fail);
  });
}

/** Reads one complete HTTP/1.1 response framed by Content-Length (the connection may stay open afterwards). */
function readResponse(socket: Socket, ms: number): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((done, fail) => {
    let buffer = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new Error(`no complete response within ${ms} ms: ${buffer.toString('utf8')}`)), ms);
    const finish = (error?: Error, value?: { status: number; headers: Record<string, string>; body: string }) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onError);
      if (error) fail(error);
      else done(value!);
    };
    const parse = (atEnd: boolean) => {
      const headerEnd = buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return atEnd ? finish(new Error(`connection ended mid-headers: ${buffer.toString('utf8')}`)) : undefined;
      const [statusLine = '', ...headerLines] = buffer.subarray(0, headerEnd).toString('latin1').split('\r\n');
      const status = Number(statusLine.split(' ')[1]);
      const headers = Object.fromEntries(
        headerLines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      const length = Number(headers['content-length']);
      const body = buffer.subarray(headerEnd + 4);
      if (Number.isInteger(length) && body.length >= length) {
        return finish(undefined, { status, headers, body: body.subarray(0, length).toString('utf8') });
      }
      if (atEnd) finish(new Error(`connection ended before the body was complete: ${buffer.toString('utf8')}`));
    };
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      parse(false);
    };
    const onEnd = () => parse(true);
    const onError = (error: Error) => finish(error);
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', onError);
  });
}

/**
 * Sends a POST's headers and the first half of its JSON body; returns the rest. HTTP/1.1 keeps
 * the connection alive unless `connectionClose` asks the server to close it after the answer.
 */
async function startSlowPost(
  port: number,
  path: string,
  payload: unknown,
  { connectionClose = false } = {},
): Promise<{ socket: Socket; rest: Buffer }> {
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  const half = Math.floor(body.length / 2);
  const socket = await openSocket(port);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${connectionClose ? 'Connection: close\r\n' : ''}` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  socket.write(body.subarray(0, half));
  // Let the server parse the headers and run its onRequest hooks before anything else happens.
  await sleep(200);
  return { socket, rest: body.subarray(half) };
}

const messages = (gateway: Gateway) => gateway.logs().map((line) => line.msg);

describe('bad configuration', () => {
  it.each([
    ['PORT', 'abc'],
    ['LOG_LEVEL', 'loud'],
  ])('%s=%s exits with 78 (EX_CONFIG), names the variable and listens nowhere', async (name, value) => {
    const gateway = await spawnGateway(await unusedPort(), { [name]: value });
    const { code } = await exitWithin(gateway, READY_WITHIN_MS);
    expect(code).toBe(78);
    expect(gateway.stderr()).toContain('invalid configuration');
    expect(gateway.stderr()).toContain(name);
    expect(gateway.logs().map((line) => line.msg)).not.toContain('gateway started');
    // Nothing listens on the free port picked for it (with LOG_LEVEL=loud, the PORT it was given).
    expect(await tryConnect(gateway.port)).toBe('ECONNREFUSED');
  });
});

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(50);
  }
}

describe('a gateway without model files', () => {
  it('starts, reports every engine unavailable with a reason, and answers engine_unavailable', async () => {
    const gateway = await startHealthy();

    expect(await get(gateway.port, '/healthz')).toEqual({ status: 200, body: JSON.stringify({ status: 'ok' }) });

    const ready = await get(gateway.port, '/readyz');
    expect(ready.status).toBe(200);
    const readiness = JSON.parse(ready.body) as { status: string; engines: Record<string, { state: string; reason?: string }> };
    expect(readiness.status).toBe('ready');
    expect(Object.keys(readiness.engines).sort()).toEqual(['asr', 'llm', 'ocr']);
    for (const status of Object.values(readiness.engines)) {
      expect(status.state).toBe('unavailable');
      expect(status.reason).toEqual(expect.any(String));
      expect(status.reason!.length).toBeGreaterThan(0);
    }

    const speech = await post(gateway.port, '/ai/v1/speech-process', VALID_BODIES['/ai/v1/speech-process']);
    expect(speech.status).toBe(503);
    expect(JSON.parse(speech.body)).toEqual({
      error: { kind: 'engine_unavailable', message: expect.stringContaining('llm'), retryable: false },
    });

    const started = gateway.logs().find((line) => line.msg === 'gateway started');
    expect(started).toBeDefined();
    expect(started).toMatchObject({
      level: 'info',
      version: expect.any(String),
      engines: {
        llm: { state: 'unavailable', reason: expect.any(String) },
        ocr: { state: 'unavailable', reason: expect.any(String) },
        asr: { state: 'unavailable', reason: expect.any(String) },
      },
    });

    // Once no engine is starting: one table for the operator, the same as /readyz.
    await until(() => gateway.logs().some((line) => String(line.msg).startsWith('startup report')));
    const report = gateway.logs().find((line) => String(line.msg).startsWith('startup report'))!;
    expect(String(report.msg).split('\n')[1]).toMatch(/^engine +state +model +sha256 +device +threads +concurrency +reason$/);
    expect(String(report.msg)).toMatch(/\nllm +unavailable +- +- +- +\d+ +\d+ +LLM_MODEL is not set/);
    expect(report.engines).toEqual(readiness.engines);
  });

  it('warns once at start of each setting written as before 0.2, naming the old and the new', async () => {
    const gateway = await startHealthy({ ASR_CONCURRENCY: '1', MODELS_VERIFY: 'on' });
    const warnings = gateway.logs().filter((line) => line.level === 'warn').map((line) => String(line.msg));
    expect(warnings.filter((message) => /ASR_CONCURRENCY|MODELS_VERIFY/.test(message))).toEqual([
      'MODELS_VERIFY=on is now written MODELS_VERIFY=true (the old spelling is read until 0.3)',
      'ASR_CONCURRENCY is now ASR_MAX_RUNNING: rename it (the old name is read until 0.3)',
    ]);
  });
});

describe('shutdown', () => {
  it('SIGTERM stops accepting, lets an in-flight request finish, then exits 0', async () => {
    const gateway = await startHealthy({ SHUTDOWN_TIMEOUT_MS: '5000' });
    const { socket, rest } = await startSlowPost(gateway.port, '/ai/v1/asr', VALID_BODIES['/ai/v1/asr'], {
      connectionClose: true,
    });
    try {
      gateway.child.kill('SIGTERM');
      await sleep(300);
      expect(gateway.child.exitCode).toBeNull();

      // New work is refused: the listener is closed (or, at worst, the answer is a retryable overloaded).
      const fresh = await get(gateway.port, '/healthz').then(
        (answer) => answer,
        (error: NodeJS.ErrnoException) => error.code ?? error.message,
      );
      if (typeof fresh === 'string') {
        expect(fresh).toBe('ECONNREFUSED');
      } else {
        expect(fresh.status).toBe(503);
        expect(JSON.parse(fresh.body)).toMatchObject({ error: { kind: 'overloaded', retryable: true } });
      }

      // The request that was already in flight still gets its whole answer.
      const answer = readResponse(socket, 4_000);
      socket.write(rest);
      const response = await answer;
      expect(response.status).toBe(503);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers.connection?.toLowerCase()).toBe('close');
      expect(JSON.parse(response.body)).toEqual({
        error: { kind: 'engine_unavailable', message: expect.stringContaining('asr'), retryable: false },
      });

      const { code } = await exitWithin(gateway, 4_000);
      expect(code).toBe(0);
      const log = messages(gateway);
      expect(log).toContain('draining in-flight requests');
      expect(log).toContain('stopped');
      expect(log).not.toContain('drain deadline passed; exiting with requests still in flight');
      expect(log.indexOf('draining in-flight requests')).toBeLessThan(log.indexOf('stopped'));
      const draining = gateway.logs().find((line) => line.msg === 'draining in-flight requests');
      expect(draining).toMatchObject({ signal: 'SIGTERM', deadline_ms: 5000 });
    } finally {
      socket.destroy();
    }
  });

  // A keep-alive client's idle socket must not hold the drain until SHUTDOWN_TIMEOUT_MS: answers
  // sent while closing carry "Connection: close".
  it('SIGTERM with a keep-alive client: exits 0 as soon as its in-flight answer is sent', async () => {
    const gateway = await startHealthy({ SHUTDOWN_TIMEOUT_MS: '1500' });
    const { socket, rest } = await startSlowPost(gateway.port, '/ai/v1/asr', VALID_BODIES['/ai/v1/asr']);
    try {
      gateway.child.kill('SIGTERM');
      await sleep(300);
      const answer = readResponse(socket, 4_000);
      socket.write(rest);
      const response = await answer;
      expect(response.status).toBe(503);
      expect(JSON.parse(response.body)).toMatchObject({ error: { kind: 'engine_unavailable' } });
      // The client keeps its socket open, as a pooling client would.
      const { code } = await exitWithin(gateway, 4_000);
      expect(messages(gateway)).not.toContain('drain deadline passed; exiting with requests still in flight');
      expect(code).toBe(0);
    } finally {
      socket.destroy();
    }
  });

  it('the drain has a deadline: a request that never finishes makes it exit 1', async () => {
    const gateway = await startHealthy({ SHUTDOWN_TIMEOUT_MS: '500' });
    const { socket } = await startSlowPost(gateway.port, '/ai/v1/asr', VALID_BODIES['/ai/v1/asr']);
    try {
      const signalledAt = Date.now();
      gateway.child.kill('SIGTERM');
      const { code } = await exitWithin(gateway, 3_000);
      expect(code).toBe(1);
      expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(400);
      const log = messages(gateway);
      expect(log).toContain('draining in-flight requests');
      expect(log).toContain('drain deadline passed; exiting with requests still in flight');
      expect(log).not.toContain('stopped');
    } finally {
      socket.destroy();
    }
  });

  // A worker thread torn down while onnxruntime runs in it aborts the process (exit 134), so the
  // engines are stopped before the exit.
  it('past the drain deadline with a PP-OCR page in flight, the page is stopped and the exit is 1', async () => {
    // The photo as every page of a TIFF, read one after another: once the first is read, the
    // reading goes on past the deadline on any machine (a page takes about a second here).
    const photo = await readFile(fixturePath('photos', 'np2016_bloodtestreport1.jpg'));
    const pages = await sharp(Array.from({ length: DRAIN_PAGES }, () => photo), { join: { animated: true } }).tiff({ compression: 'jpeg' }).toBuffer();
    const files = await startFileServer((_request, response) => response.end(pages));
    try {
      const gateway = await startHealthy({ OCR_ENGINE: 'ppocr', OCR_WORKERS: '1', FETCH_ALLOW_LOOPBACK: 'true', SHUTDOWN_TIMEOUT_MS: '300' });
      // Once every engine has settled: PP-OCR and its audit reader load in the background.
      await until(() => gateway.logs().some((line) => String(line.msg).startsWith('startup report')), READY_WITHIN_MS);
      const body = { request_id: 'drain-ocr', files: [fileReference(files, 1, 'pages.tif')] };
      const answer = post(gateway.port, '/ai/v1/case-ocr', body).catch((error: Error) => error);
      const pagesRead = () => gateway.logs().filter((line) => line.msg === 'document progress').map((line) => Number(line.pages_done));
      await until(() => pagesRead().length > 0, 60_000);
      gateway.child.kill('SIGTERM');
      const { code, signal } = await exitWithin(gateway, 5_000);
      expect({ code, signal }).toEqual({ code: 1, signal: null });
      expect(messages(gateway)).toContain('drain deadline passed; exiting with requests still in flight');
      // The pages were still being read when it exited.
      expect(Math.max(...pagesRead())).toBeLessThan(DRAIN_PAGES);
      expect(gateway.stderr()).not.toMatch(/terminate called|Napi::Error/);
      await answer;
    } finally {
      await files.close();
    }
  }, 90_000);

  it('SIGINT stops an idle gateway with exit code 0', async () => {
    const gateway = await startHealthy();
    gateway.child.kill('SIGINT');
    const { code, signal } = await exitWithin(gateway, 3_000);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    const log = messages(gateway);
    expect(gateway.logs().find((line) => line.msg === 'draining in-flight requests')).toMatchObject({ signal: 'SIGINT' });
    expect(log).toContain('stopped');
    expect(await tryConnect(gateway.port)).toBe('ECONNREFUSED');
  });
});
