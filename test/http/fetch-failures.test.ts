/**
 * Hostile: a token holder who points file_url / voice_url at hosts and ports of the hospital's
 * LAN must learn nothing from the answers. Every network cause below, through every operation
 * that fetches, gives the same status and byte-identical body; only the log tells them apart,
 * and it names no path, no query and nothing of the patient. A file its host served whole with
 * a 2xx but that is too large or of no accepted type keeps its own 4xx (the platform must not
 * retry a broken file it uploaded); an error status never reaches those checks, whatever its body.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { startFileServer, type FileServer } from '../../scripts/lib/file-server.js';
import { BlankOcrEngine, enginesWith } from '../../scripts/lib/stand-in-engines.js';
import { FakeAsrEngine } from '../support/test-engines.js';
import { PNG_BYTES } from '../support/media-bytes.js';

const FETCH_TIMEOUT_MS = 1000;
const MAX_BYTES = 4096;
/** What must never reach a log line: a patient's name in the path, a signed link's secret in the query. */
const PATIENT = '张三';
const SECRET = 's3cr3t-signature';

const served: Record<string, (response: ServerResponse) => void> = {
  missing: (response) => response.writeHead(404).end('no such object'),
  busy: (response) => response.writeHead(503).end('try later'),
  stall: (response) => response.writeHead(200, { 'content-type': 'image/png' }).flushHeaders(),
  'to-metadata': (response) => response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end(),
  'to-nat64-private': (response) => response.writeHead(302, { location: 'http://[64:ff9b::10.0.0.5]/x.png' }).end(),
  'png-with-404': (response) => response.writeHead(404, { 'content-type': 'image/png' }).end(PNG_BYTES),
  'big-with-500': (response) => response.writeHead(500).end(Buffer.alloc(MAX_BYTES * 2)),
  'cut-short': (response) => {
    response.writeHead(200, { 'content-type': 'image/png', 'content-length': MAX_BYTES });
    response.write(PNG_BYTES, () => response.socket?.destroy());
  },
  html: (response) => response.writeHead(200, { 'content-type': 'image/png' }).end('<html><body>router admin</body></html>'),
  empty: (response) => response.writeHead(200, { 'content-type': 'image/png' }).end(),
  big: (response) => response.writeHead(200).end(Buffer.concat([PNG_BYTES, Buffer.alloc(MAX_BYTES)])),
};

let files: FileServer;
let closedPort: number;
let gateway: TestGateway;

const onServer = (cause: string) => files.url(`/case/${cause}/${encodeURIComponent(PATIENT)}.png?X-Amz-Signature=${SECRET}`);

/** The URL for each network cause, and the reason the log must give for it. */
function networkCauses(): Array<[cause: string, url: string, reason: string | RegExp]> {
  const port = new URL(files.url('/')).port;
  return [
    ['HTTP 404', onServer('missing'), 'server answered HTTP 404'],
    ['HTTP 503', onServer('busy'), 'server answered HTTP 503'],
    ['HTTP 404 with an image as its body', onServer('png-with-404'), 'server answered HTTP 404'],
    ['HTTP 500 with a body over the limit', onServer('big-with-500'), 'server answered HTTP 500'],
    ['a stalled body', onServer('stall'), `timed out after ${FETCH_TIMEOUT_MS} ms`],
    ['a body cut short', onServer('cut-short'), /^request failed \(\S+\)$/],
    ['a redirect to the metadata address', onServer('to-metadata'), 'redirect refused: host refused (cloud metadata address)'],
    [
      'a redirect to a NAT64 form of a private address',
      onServer('to-nat64-private'),
      'redirect refused: host refused (NAT64 address of a non-public IPv4 address)',
    ],
    ['a closed port', `http://127.0.0.1:${closedPort}/${PATIENT}.png?sig=${SECRET}`, 'request failed (ECONNREFUSED)'],
    ['a TLS handshake with a plain HTTP port', `https://127.0.0.1:${port}/${PATIENT}.png?sig=${SECRET}`, /^request failed \((?!network error)\S+\)$/],
    // .invalid never resolves (RFC 6761); a machine with no reachable resolver times out instead.
    [
      'a name DNS does not know',
      `http://no-such-host.invalid/${PATIENT}.png?sig=${SECRET}`,
      new RegExp(`^(request failed \\(E(NOTFOUND|AI_AGAIN)\\)|timed out after ${FETCH_TIMEOUT_MS} ms)$`),
    ],
  ];
}

beforeAll(async () => {
  files = await startFileServer((request, response) => {
    const cause = /^\/case\/([^/]+)\//.exec(request.url ?? '')?.[1] ?? '';
    (served[cause] ?? served.missing!)(response);
  });
  const closed = await startFileServer(() => undefined);
  closedPort = Number(new URL(closed.url('/')).port);
  await closed.close();
  gateway = await startGateway(
    { FETCH_ALLOW_LOOPBACK: 'true', FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS), FETCH_MAX_BYTES: String(MAX_BYTES), ASR_MAX_BYTES: String(MAX_BYTES) },
    { engines: enginesWith({ ocr: new BlankOcrEngine(), asr: new FakeAsrEngine() }) },
  );
});
afterAll(async () => {
  await gateway.close();
  await files.close();
});

const fileBody = (request_id: string, file_url: string) => ({
  request_id,
  files: [{ upload_file_id: 7, bucket: 'b', object_key: 'k/7.png', file_name: '7.png', file_url }],
});

const OPERATIONS = [
  { path: '/ai/v1/asr', body: (request_id: string, url: string) => ({ request_id, voice_url: url }), field: 'voice_url' },
  { path: '/ai/v1/case-ocr', body: fileBody, field: 'file 7' },
  { path: '/ai/v1/case-file-process', body: fileBody, field: 'file 7' },
];

/** The reason logged for each request_id. */
function loggedReasons(): Map<string, unknown> {
  const lines = gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
  return new Map(lines.filter((line) => line.msg === 'file fetch failed').map((line) => [String(line.request_id), line.reason]));
}

/** What is wrong with a file served whole with a 200: the honest answer each operation gives. */
const CONTENT_CAUSES = [
  ['a web page', 'html', 415, 'unsupported_media', 'unrecognised file type'],
  ['an empty file', 'empty', 415, 'unsupported_media', 'empty file'],
  ['a file over the limit', 'big', 413, 'payload_too_large', `file is larger than ${MAX_BYTES} bytes`],
] as const;

describe.each(OPERATIONS)('$path: every network failure looks the same, a wrong file says what is wrong', ({ path, body, field }) => {
  it('answers one status and one byte-identical body, and logs each cause apart', async () => {
    const answers = [];
    for (const [cause, url] of networkCauses()) {
      const response = await gateway.app.inject({ method: 'POST', url: path, payload: body(`${path}:${cause}`, url) });
      answers.push({ cause, status: response.statusCode, body: response.body });
    }
    expect(JSON.parse(answers[0]!.body)).toEqual({
      error: { kind: 'fetch_failed', message: `${field}: could not fetch the URL; the gateway's log says why`, retryable: true },
    });
    for (const answer of answers) expect(answer, answer.cause).toEqual({ cause: answer.cause, status: 502, body: answers[0]!.body });

    const reasons = loggedReasons();
    for (const [cause, , reason] of networkCauses()) {
      const logged = reasons.get(`${path}:${cause}`);
      if (typeof reason === 'string') expect(logged, cause).toBe(reason);
      else expect(logged, cause).toMatch(reason);
    }
  }, 30_000);

  it.each(CONTENT_CAUSES)('a file served whole but wrong (%s) keeps its own 4xx, not to be retried', async (cause, route, status, kind, why) => {
    const requestId = `${path}:content:${cause}`;
    const response = await gateway.app.inject({ method: 'POST', url: path, payload: body(requestId, onServer(route)) });
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual({ error: { kind, message: `${field}: ${why}`, retryable: false } });
    expect(loggedReasons().has(requestId)).toBe(false);
  });
});

it('logs no path, query or patient name of a fetched URL', () => {
  const log = gateway.logs.join('\n');
  expect(log).toContain('file fetch failed');
  for (const leak of [PATIENT, encodeURIComponent(PATIENT), SECRET, '/case/', 'meta-data']) expect(log).not.toContain(leak);
});
