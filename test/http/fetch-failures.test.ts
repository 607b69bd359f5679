/**
 * Hostile: a token holder who points file_url / voice_url at hosts and ports of the hospital's
 * LAN must learn nothing from the answers. Every network cause below, through every operation
 * that fetches, gives the same status and byte-identical body; only the log tells them apart,
 * and it names no path, no query and nothing of the patient.
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
  html: (response) => response.writeHead(200, { 'content-type': 'image/png' }).end('<html><body>router admin</body></html>'),
  big: (response) => response.writeHead(200).end(Buffer.concat([PNG_BYTES, Buffer.alloc(MAX_BYTES)])),
};

let files: FileServer;
let closedPort: number;
let gateway: TestGateway;

/** The URL for each cause, and the reason the log must give for it. */
function causes(): Array<[cause: string, url: string, reason: string | RegExp]> {
  const onServer = (cause: string) => files.url(`/case/${cause}/${encodeURIComponent(PATIENT)}.png?X-Amz-Signature=${SECRET}`);
  const port = new URL(files.url('/')).port;
  return [
    ['HTTP 404', onServer('missing'), 'server answered HTTP 404'],
    ['HTTP 503', onServer('busy'), 'server answered HTTP 503'],
    ['a stalled body', onServer('stall'), `timed out after ${FETCH_TIMEOUT_MS} ms`],
    ['a redirect to the metadata address', onServer('to-metadata'), 'redirect refused: host refused (cloud metadata address)'],
    ['a web page', onServer('html'), 'unrecognised file type'],
    ['a file over the limit', onServer('big'), `file is larger than ${MAX_BYTES} bytes`],
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

describe.each(OPERATIONS)('$path: every network failure looks the same', ({ path, body, field }) => {
  it('answers one status and one byte-identical body, and logs each cause apart', async () => {
    const answers = [];
    for (const [cause, url] of causes()) {
      const response = await gateway.app.inject({ method: 'POST', url: path, payload: body(`${path}:${cause}`, url) });
      answers.push({ cause, status: response.statusCode, body: response.body });
    }
    expect(JSON.parse(answers[0]!.body)).toEqual({
      error: { kind: 'fetch_failed', message: `${field}: could not fetch the URL; the gateway's log says why`, retryable: true },
    });
    for (const answer of answers) expect(answer, answer.cause).toEqual({ cause: answer.cause, status: 502, body: answers[0]!.body });

    const reasons = loggedReasons();
    for (const [cause, , reason] of causes()) {
      const logged = reasons.get(`${path}:${cause}`);
      if (typeof reason === 'string') expect(logged, cause).toBe(reason);
      else expect(logged, cause).toMatch(reason);
    }
  }, 30_000);
});

it('logs no path, query or patient name of a fetched URL', () => {
  const log = gateway.logs.join('\n');
  expect(log).toContain('file fetch failed');
  for (const leak of [PATIENT, encodeURIComponent(PATIENT), SECRET, '/case/', 'meta-data']) expect(log).not.toContain(leak);
});
