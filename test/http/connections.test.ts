import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/contract/operations.js';
import { silentPcmWav } from '../../src/engines/asr/wav.js';
import { startFileServer, type FileServer } from '../../scripts/lib/file-server.js';
import { baseUrl, postJson, startGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { slowPost } from '../support/slow-client.js';
import { FakeAsrEngine, enginesWithAsr } from '../support/test-engines.js';
import { waitFor } from '../support/wait.js';

const TOKEN = 'connections-test-token';
const auth = { authorization: `Bearer ${TOKEN}` };
const REQUEST_TIMEOUT_MS = 1_000;
const HEADERS_TIMEOUT_MS = 700;
const KEEP_ALIVE_TIMEOUT_MS = 2_500;
const MAX_CONNECTIONS = 4;
/** Node checks the receiving timeouts once a second: a cut comes that much late at most (and a little scheduling). */
const CHECK_SLACK_MS = 1_500;

/** A raw connection: what the server sent and when it closed it, timed from the connection's start. */
interface RawConnection {
  socket: Socket;
  received(): string;
  closed: Promise<number>;
}

function openConnection(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let received = '';
    const socket = connect(port, '127.0.0.1');
    socket.on('data', (chunk) => (received += chunk.toString('utf8')));
    socket.on('error', () => undefined); // a reset is a close too; `closed` reports it
    const closed = new Promise<number>((done) => socket.on('close', () => done(performance.now() - started)));
    socket.once('connect', () => resolve({ socket, received: () => received, closed }));
    socket.once('error', reject);
  });
}

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
const errorKindOf = (raw: string) => (JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as { error: { kind: string } }).error.kind;

/**
 * Hostile clients through a real socket: one trickling a body or a head forever, one opening a
 * connection and saying nothing, and more connections than the cap; and the legitimate slow
 * case that must not be cut: a request whose answer takes longer than the receiving timeout.
 */
describe('connection limits', () => {
  let gateway: TestGateway;
  let port: number;
  let files: FileServer;
  const asr = new FakeAsrEngine();

  beforeAll(async () => {
    files = await startFileServer((_request, response) => response.end(silentPcmWav(500)));
    gateway = await startGateway(
      {
        API_TOKENS: TOKEN,
        FETCH_ALLOW_LOOPBACK: 'true',
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
        MAX_CONNECTIONS: String(MAX_CONNECTIONS),
      },
      { listen: true, engines: enginesWithAsr(asr) },
    );
    port = (gateway.app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await gateway.close();
    await files.close();
  });

  it('cuts off a client trickling its body with 408 request_timeout once REQUEST_TIMEOUT_MS has passed', async () => {
    const started = performance.now();
    // 1 KB a byte at a time every 50 ms would take 50 s.
    const answer = await slowPost({ port, path: OPERATIONS.speechProcess.path, bytes: 1000, chunkBytes: 1, delayMs: 50, headers: auth });
    const elapsed = performance.now() - started;
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({ error: { kind: 'request_timeout', message: expect.any(String), retryable: true } });
    expect(answer.headers.connection).toBe('close');
    expect(elapsed).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS);
    expect(elapsed).toBeLessThan(REQUEST_TIMEOUT_MS + CHECK_SLACK_MS);
    expect(answer.sentWhenAnswered).toBeLessThan(1000);
  });

  it('cuts off a connection that sends nothing, or trickles its head, after HEADERS_TIMEOUT_MS', async () => {
    const silent = await openConnection(port);
    const trickling = await openConnection(port);
    trickling.socket.write('POST /ai/v1/asr HTTP/1.1\r\nHost: gateway\r\n');
    const header = setInterval(() => trickling.socket.write('X-Pad: 1\r\n'), 50);
    const [silentFor, tricklingFor] = await Promise.all([silent.closed, trickling.closed]);
    clearInterval(header);
    for (const [connection, openFor] of [[silent, silentFor], [trickling, tricklingFor]] as const) {
      expect(openFor).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS);
      expect(openFor).toBeLessThan(HEADERS_TIMEOUT_MS + CHECK_SLACK_MS);
      expect([statusOf(connection.received()), errorKindOf(connection.received())]).toEqual([408, 'request_timeout']);
    }
  });

  it('answers a request that takes longer to process than REQUEST_TIMEOUT_MS', async () => {
    const calls = asr.calls.length;
    const answer = postJson(`${baseUrl(gateway.app)}${OPERATIONS.asr.path}`, { request_id: 'slow-work', voice_url: files.url('/a.wav') }, undefined, auth);
    const [call] = (await asr.waitForCalls(calls + 1)).slice(calls);
    await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS + CHECK_SLACK_MS));
    call!.finish({ text: 'done', segments: [] });
    const response = await answer;
    expect([response.status, JSON.parse(response.body).text]).toEqual([200, 'done']);
  });

  it('keeps an idle kept-alive connection past HEADERS_TIMEOUT_MS, and closes it after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const connection = await openConnection(port);
    const get = 'GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n';
    connection.socket.write(get);
    await waitFor(connection.received, (raw) => raw.includes('\r\n\r\n'));
    await new Promise((resolve) => setTimeout(resolve, HEADERS_TIMEOUT_MS + CHECK_SLACK_MS));
    connection.socket.write(get);
    await waitFor(connection.received, (raw) => raw.split('HTTP/1.1 200').length === 3);
    const idleSince = performance.now();
    await connection.closed;
    const idleFor = performance.now() - idleSince;
    expect(idleFor).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 100);
    expect(idleFor).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + CHECK_SLACK_MS);
  });

  it('closes connections beyond MAX_CONNECTIONS as they open, serves again once one closes, and logs it', async () => {
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => openConnection(port)));
    const refused = await openConnection(port);
    const refusedFor = await refused.closed;
    expect(refusedFor).toBeLessThan(HEADERS_TIMEOUT_MS);
    expect(refused.received()).toBe('');
    held[0]!.socket.destroy();
    await held[0]!.closed;
    const health = await postJson(`${baseUrl(gateway.app)}/no-such-route`, {});
    expect(health.status).toBe(404);
    for (const connection of held) connection.socket.destroy();
    expect(gateway.logs.some((line) => line.includes('MAX_CONNECTIONS are open'))).toBe(true);
  });
});
