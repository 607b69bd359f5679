import { mkdtemp, readFile, rm } from 'node:fs/promises';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import * as net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import { ByteBudget, createSafeFetcher, withLocalFiles } from '../../../src/platform/fetch/index.js';
import type { SafeFetchOptions } from '../../../src/platform/fetch/index.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]);
const WAV = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WAVEfmt ')]);
const GARBAGE = Buffer.from([0x13, 0x37, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x42, 0x99, 0x01]);
const MAX_BYTES = 32 * 1024;

interface TestServer {
  port: number;
  url: (path: string) => string;
  close: () => Promise<void>;
}

async function startServer(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function closedPort(): Promise<number> {
  const server = await startServer(() => undefined);
  await server.close();
  return server.port;
}

function send(res: http.ServerResponse, body: Buffer, contentType: string): void {
  res.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
  res.end(body);
}

function redirect(res: http.ServerResponse, location: string, status = 302): void {
  res.writeHead(status, { location });
  res.end();
}

let portB = 0;
let stalledBodiesClosed = 0;

// Routes of the main test server; content types deliberately lie where sniffing is under test.
const mainRoutes: Record<string, http.RequestListener> = {
  '/png': (_req, res) => send(res, PNG, 'text/plain'),
  '/jpeg': (_req, res) => send(res, JPEG, 'audio/wav'),
  '/wav': (_req, res) => send(res, WAV, 'image/png'),
  '/garbage': (_req, res) => send(res, GARBAGE, 'image/png'),
  '/empty': (_req, res) => send(res, Buffer.alloc(0), 'image/png'),
  '/404': (_req, res) => res.writeHead(404).end('not here'),
  // What the file checks would refuse, but with an error status: the status decides, not the body.
  '/404-big': (_req, res) => res.writeHead(404, { 'content-length': 10_000_000 }).end(PNG),
  '/500-page': (_req, res) => res.writeHead(500, { 'content-type': 'text/html' }).end('<html>down</html>'),
  '/cut-short': (req, res) => {
    // Announces more than it sends, then hangs up: the body never arrives whole.
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length * 4 });
    res.write(PNG, () => req.socket.destroy());
  },
  '/503': (_req, res) => res.writeHead(503).end('busy'),
  '/429': (_req, res) => res.writeHead(429).end('slow down'),
  '/to-metadata': (_req, res) => redirect(res, 'http://169.254.169.254/latest/meta-data'),
  '/to-file': (_req, res) => redirect(res, 'file:///etc/passwd'),
  '/to-b': (_req, res) => redirect(res, `http://127.0.0.1:${portB}/png`, 307),
  '/wav-big': (_req, res) => {
    res.writeHead(200, { 'content-type': 'audio/wav' }); // chunked, 64 KiB + header
    res.write(WAV);
    for (let i = 0; i < 4; i += 1) res.write(Buffer.alloc(16 * 1024, 0x41));
    res.end();
  },
  '/stream-big': (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png' }); // no Content-Length: chunked
    res.write(PNG);
    for (let i = 0; i < 8; i += 1) res.write(Buffer.alloc(16 * 1024, 0x41));
    res.end();
  },
  '/declared-big': (_req, res) => {
    // Announces 10 MB but sends a few bytes and stalls: only an early refusal answers quickly.
    res.writeHead(200, { 'content-length': 10_000_000 });
    res.write(PNG);
  },
  '/stall': (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png' });
    res.flushHeaders();
  },
  '/stall-body': (_req, res) => {
    res.on('close', () => (stalledBodiesClosed += 1));
    res.writeHead(200, { 'content-type': 'image/png' });
    res.write(PNG);
  },
};

function mainHandler(req: http.IncomingMessage, res: http.ServerResponse): void {
  res.on('error', () => undefined); // clients hang up on purpose in several tests
  const { pathname } = new URL(req.url ?? '/', 'http://test');
  const hops = /^\/chain\/(\d+)$/.exec(pathname)?.[1];
  if (hops !== undefined) {
    const left = Number(hops);
    if (left === 0) send(res, PNG, 'image/png');
    else redirect(res, String(left - 1)); // relative: /chain/3 -> /chain/2
    return;
  }
  const route = mainRoutes[pathname];
  if (route) route(req, res);
  else res.writeHead(404).end();
}

let main: TestServer;
let serverB: TestServer;

beforeAll(async () => {
  main = await startServer(mainHandler);
  serverB = await startServer((req, res) => send(res, PNG, 'image/png'));
  portB = serverB.port;
});

afterAll(async () => {
  await Promise.all([main.close(), serverB.close()]);
});

afterEach(() => {
  vi.restoreAllMocks();
});

const baseOptions: SafeFetchOptions = {
  allowHosts: [],
  allowLoopback: true,
  maxBytes: MAX_BYTES,
  connectTimeoutMs: 1000,
  totalTimeoutMs: 3000,
};

function fetcher(overrides: Partial<SafeFetchOptions> = {}) {
  return createSafeFetcher({ ...baseOptions, ...overrides });
}

/** What the fetcher wrote to the request's log. */
const logged: Array<{ details: Record<string, unknown>; message: string }> = [];
const log = { warn: (details: Record<string, unknown>, message: string) => void logged.push({ details, message }) };

const documents = { accept: ['document'] as const, label: 'file 1', log };
const audio = { accept: ['audio'] as const, label: 'voice_url', log };

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

const GENERIC = { kind: 'fetch_failed', status: 502, retryable: true };

/**
 * A fetch that failed on the network: the caller gets the generic error naming only `label`,
 * and the log one line with the origin of the failed hop and the reason, which this returns.
 */
async function networkFailure(promise: Promise<unknown>, label = 'file 1'): Promise<string> {
  logged.length = 0;
  const error = await failure(promise);
  expect(error).toMatchObject({ ...GENERIC, message: `${label}: could not fetch the URL; the gateway's log says why` });
  expect(logged).toHaveLength(1);
  expect(logged[0]!.message).toBe('file fetch failed');
  expect(logged[0]!.details.fetch).toBe(label);
  return String(logged[0]!.details.reason);
}

/** Records the host of every socket connect attempt (for names, before their lookup). */
function spyOnConnects(): string[] {
  const hosts: string[] = [];
  const original = net.Socket.prototype.connect;
  vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (this: net.Socket, ...args: unknown[]) {
    // net.connect() hands over its normalised arguments as one array: [options, callback].
    const [options] = Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
    if (typeof options === 'object' && options !== null && 'host' in options) hosts.push(String(options.host));
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  });
  return hosts;
}

describe('fetching', () => {
  it.each([
    ['/png', documents, 'image/png', PNG],
    ['/jpeg', documents, 'image/jpeg', JPEG],
    ['/wav', audio, 'audio/wav', WAV],
  ] as const)('sniffs %s from its bytes, whatever Content-Type says', async (path, request, mediaType, body) => {
    const file = await fetcher().fetch(main.url(path), request);
    expect(file.media.mediaType).toBe(mediaType);
    expect(file.bytes.equals(body)).toBe(true);
    expect(file.finalUrl).toBe(main.url(path));
  });

  it('connects to the address the resolver returned', async () => {
    const resolve = vi.fn(async () => [{ address: '127.0.0.1', family: 4 as const }]);
    const file = await fetcher({ resolve }).fetch(`http://store.example:${main.port}/png`, documents);
    expect(file.media.extension).toBe('png');
    expect(resolve).toHaveBeenCalledWith('store.example');
  });

  it('also checks the single-address lookup form used without autoSelectFamily', async () => {
    const previous = net.getDefaultAutoSelectFamily();
    net.setDefaultAutoSelectFamily(false);
    try {
      const resolve = async () => [{ address: '127.0.0.1', family: 4 as const }];
      const url = `http://store.example:${main.port}/png`;
      expect((await fetcher({ resolve }).fetch(url, documents)).media.extension).toBe('png');
      const refused = await networkFailure(fetcher({ resolve, allowLoopback: false }).fetch(url, documents));
      expect(refused).toBe('host refused (loopback address)');
    } finally {
      net.setDefaultAutoSelectFamily(previous);
    }
  });
});

describe('address rules', () => {
  const strict = () => fetcher({ allowLoopback: false });

  it.each([
    ['IPv4 loopback', () => main.url('/png')],
    ['IPv6 loopback', () => `http://[::1]:${main.port}/png`],
    ['IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${main.port}/png`],
    ['decimal loopback', () => `http://2130706433:${main.port}/png`],
  ])('refuses %s when loopback is not allowed, judged on the URL before any packet', async (_name, url) => {
    const connects = spyOnConnects();
    const error = await failure(strict().fetch(url(), documents));
    expect(error.kind).toBe('forbidden_url');
    expect(error.message).toBe('file 1: host refused (loopback address)');
    expect(connects).toEqual([]);
  });

  it('refuses a name that DNS maps to loopback with the generic error: the refusal tells what the name resolves to', async () => {
    const reason = await networkFailure(strict().fetch(`http://localhost:${main.port}/png`, documents));
    expect(reason).toBe('host refused (loopback address)');
  });

  it('refuses a name that a resolver maps to loopback', async () => {
    const resolve = async () => [{ address: '127.0.0.1', family: 4 as const }];
    const reason = await networkFailure(
      fetcher({ allowLoopback: false, resolve }).fetch(`http://evil.example:${main.port}/png`, documents),
    );
    expect(reason).toBe('host refused (loopback address)');
    expect(logged[0]!.details.origin).toBe(`http://evil.example:${main.port}`);
  });

  it('refuses a host when any of its addresses is refused', async () => {
    const resolve = async () => [
      { address: '10.1.2.3', family: 4 as const },
      { address: '169.254.169.254', family: 4 as const },
    ];
    const reason = await networkFailure(fetcher({ resolve }).fetch('http://mixed.example/x', documents));
    expect(reason).toBe('host refused (cloud metadata address)');
  });

  it('refuses a name that resolves to a NAT64 form of a private address', async () => {
    const resolve = async () => [{ address: '64:ff9b::a00:5', family: 6 as const }];
    const reason = await networkFailure(fetcher({ resolve }).fetch('http://nat64.example/x', documents));
    expect(reason).toBe('host refused (NAT64 address of a non-public IPv4 address)');
  });

  it.each([
    ['file:///etc/passwd', 'file 1: scheme "file:" not allowed'],
    ['ftp://127.0.0.1/x', 'file 1: scheme "ftp:" not allowed'],
    ['http://169.254.169.254/latest/meta-data', 'file 1: host refused (cloud metadata address)'],
    ['http://[fe80::1]/', 'file 1: host refused (link-local address)'],
    ['http://[64:ff9b::10.0.0.5]/', 'file 1: host refused (NAT64 address of a non-public IPv4 address)'],
    ['http://[2002:7f00:1::1]/', 'file 1: host refused (6to4 address)'],
    ['http://[::127.0.0.1]/', 'file 1: host refused (IPv4-compatible IPv6 address)'],
    ['not a url', 'file 1: not a valid http(s) URL'],
  ])('refuses %s as sent, naming why', async (url, message) => {
    const error = await failure(fetcher().fetch(url, documents));
    expect(error.kind).toBe('forbidden_url');
    expect(error.message).toBe(message);
  });

  it('refuses 0.0.0.0 even with loopback allowed', async () => {
    const error = await failure(fetcher().fetch(`http://0.0.0.0:${main.port}/png`, documents));
    expect(error.kind).toBe('forbidden_url');
    expect(error.message).toBe('file 1: host refused (unspecified address)');
  });
});

describe('redirects', () => {
  it('refuses a redirect to the metadata address without connecting there', async () => {
    const connects = spyOnConnects();
    const reason = await networkFailure(fetcher().fetch(main.url('/to-metadata'), documents));
    expect(reason).toBe('redirect refused: host refused (cloud metadata address)');
    expect(connects).toEqual(['127.0.0.1']);
  });

  it('refuses a redirect to file://', async () => {
    const reason = await networkFailure(fetcher().fetch(main.url('/to-file'), documents));
    expect(reason).toBe('redirect refused: scheme "file:" not allowed');
  });

  it('follows a relative chain of 2 hops', async () => {
    const file = await fetcher().fetch(main.url('/chain/2'), documents);
    expect(file.media.mediaType).toBe('image/png');
    expect(file.finalUrl).toBe(main.url('/chain/0'));
  });

  it('follows 5 redirects but not 6', async () => {
    await expect(fetcher().fetch(main.url('/chain/5'), documents)).resolves.toBeDefined();
    expect(await networkFailure(fetcher().fetch(main.url('/chain/6'), documents))).toBe('more than 5 redirects');
  });

  it('honours maxRedirects', async () => {
    const reason = await networkFailure(fetcher({ maxRedirects: 1 }).fetch(main.url('/chain/2'), documents));
    expect(reason).toBe('more than 1 redirects');
  });
});

describe('allowlist', () => {
  const allowA = () => fetcher({ allowHosts: [`127.0.0.1:${main.port}`] });

  it('fetches from an allowlisted host and port', async () => {
    const file = await allowA().fetch(main.url('/png'), documents);
    expect(file.media.mediaType).toBe('image/png');
  });

  it('refuses a redirect to another port of the same host', async () => {
    const reason = await networkFailure(allowA().fetch(main.url('/to-b'), documents));
    expect(reason).toBe('redirect refused: host 127.0.0.1 not in FETCH_ALLOW_HOSTS');
  });

  it('refuses a URL to a host:port outside the allowlist, naming why', async () => {
    const error = await failure(allowA().fetch(serverB.url('/png'), documents));
    expect(error.kind).toBe('forbidden_url');
    expect(error.message).toBe('file 1: host 127.0.0.1 not in FETCH_ALLOW_HOSTS');
  });

  it('still applies address rules to allowlisted hosts', async () => {
    const error = await failure(
      fetcher({ allowHosts: ['127.0.0.1'], allowLoopback: false }).fetch(main.url('/png'), documents),
    );
    expect(error.message).toBe('file 1: host refused (loopback address)');
  });
});

/**
 * A file its host served with a 2xx that is not one the operation takes: the caller hears what
 * is wrong with it (a 4xx, not retryable: the same file will fail again), and nothing is logged.
 */
async function contentRefusal(promise: Promise<unknown>): Promise<GatewayError> {
  logged.length = 0;
  const error = await failure(promise);
  expect(error.status).toBeGreaterThanOrEqual(400);
  expect(error.status).toBeLessThan(500);
  expect(error.retryable).toBe(false);
  expect(logged).toEqual([]);
  return error;
}

describe('size limit', () => {
  it('counts streamed bytes when there is no Content-Length', async () => {
    const error = await contentRefusal(fetcher().fetch(main.url('/stream-big'), documents));
    expect(error).toMatchObject({ kind: 'payload_too_large', message: `file 1: file is larger than ${MAX_BYTES} bytes` });
  });

  it('refuses a Content-Length over the limit before reading the body', async () => {
    const started = Date.now();
    const error = await contentRefusal(fetcher().fetch(main.url('/declared-big'), documents));
    expect(error.kind).toBe('payload_too_large');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('download to a file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'safe-fetch-download-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('streams the body into the file and sniffs its head', async () => {
    const path = join(dir, 'big.wav');
    const file = await fetcher({ maxAudioBytes: 1024 * 1024 }).download(main.url('/wav-big'), { ...audio, path });
    expect(file).toMatchObject({ path, size: WAV.length + 64 * 1024, media: { mediaType: 'audio/wav', kind: 'audio' } });
    const written = await readFile(path);
    expect(written.length).toBe(file.size);
    expect(written.subarray(0, WAV.length)).toEqual(WAV);
  });

  it('audio has its own byte limit; documents keep the general one', async () => {
    const path = join(dir, 'limited.wav');
    const small = fetcher({ maxBytes: MAX_BYTES, maxAudioBytes: 1024 });
    expect((await contentRefusal(small.download(main.url('/wav-big'), { ...audio, path }))).message).toBe(
      'voice_url: file is larger than 1024 bytes',
    );
    const large = fetcher({ maxBytes: 1024, maxAudioBytes: 1024 * 1024 });
    expect((await large.download(main.url('/wav-big'), { ...audio, path })).size).toBe(WAV.length + 64 * 1024);
    expect((await contentRefusal(large.fetch(main.url('/stream-big'), documents))).kind).toBe('payload_too_large');
  });

  it('a body cut short while streaming to disk is the generic error', async () => {
    const path = join(dir, 'cut-short');
    expect(await networkFailure(fetcher().download(main.url('/cut-short'), { ...documents, path }))).toMatch(/^request failed \(\S+\)$/);
  });

  it('refuses what is not audio after writing it (the caller deletes the file)', async () => {
    const error = await contentRefusal(fetcher().download(main.url('/png'), { ...audio, path: join(dir, 'image') }));
    expect(error).toMatchObject({ kind: 'unsupported_media', message: 'voice_url: got image/png, expected audio' });
  });
});

describe('timeouts and aborts', () => {
  it('gives up on a server that stalls after the headers', async () => {
    const started = Date.now();
    const reason = await networkFailure(fetcher({ totalTimeoutMs: 300 }).fetch(main.url('/stall'), documents));
    expect(reason).toBe('timed out after 300 ms');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('gives up when the connection is not made in time', async () => {
    const resolve = () => new Promise<never>(() => undefined); // DNS that never answers
    const reason = await networkFailure(fetcher({ resolve, connectTimeoutMs: 100 }).fetch('http://slow.example/x', documents));
    expect(reason).toBe('connect timed out after 100 ms');
  });

  it('rejects promptly when the caller aborts mid-download', async () => {
    const closedBefore = stalledBodiesClosed;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const error = await failure(
      fetcher().fetch(main.url('/stall-body'), { ...documents, signal: controller.signal }),
    );
    expect(error.kind).toBe('fetch_failed');
    expect(error.retryable).toBe(true);
    expect(error.message).toBe('file 1: aborted');
    expect(Date.now() - started).toBeLessThan(1000);
    await vi.waitFor(() => expect(stalledBodiesClosed).toBe(closedBefore + 1)); // the connection was torn down
  });

  it("rejects with the caller's GatewayError reason", async () => {
    const controller = new AbortController();
    const reason = new GatewayError('timeout', 'request deadline passed');
    setTimeout(() => controller.abort(reason), 50);
    const error = await failure(
      fetcher().fetch(main.url('/stall-body'), { ...documents, signal: controller.signal }),
    );
    expect(error).toBe(reason);
  });
});

describe('HTTP and network failures', () => {
  it.each(['/404', '/503', '/429'])('%s fails with the generic error, its status logged', async (path) => {
    const reason = await networkFailure(fetcher().fetch(main.url(path), documents));
    expect(reason).toBe(`server answered HTTP ${path.slice(1)}`);
  });

  it('a refused connection fails with the generic error, its code logged', async () => {
    const port = await closedPort();
    expect(await networkFailure(fetcher().fetch(`http://127.0.0.1:${port}/png`, documents))).toBe('request failed (ECONNREFUSED)');
  });

  it('a name DNS does not know fails with the generic error', async () => {
    const resolve = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
    };
    expect(await networkFailure(fetcher({ resolve }).fetch('http://nowhere.example/x', documents))).toBe('request failed (ENOTFOUND)');
    expect(await networkFailure(fetcher({ resolve: async () => [] }).fetch('http://nowhere.example/x', documents))).toBe('host not found');
  });

  it('a TLS handshake that fails is the generic error', async () => {
    // An http server answering TLS's ClientHello with plain HTTP: the handshake cannot succeed.
    const reason = await networkFailure(fetcher().fetch(`https://127.0.0.1:${main.port}/png`, documents));
    expect(reason).toMatch(/^request failed \((?!network error)\S+\)$/);
  });

  it.each([
    ['an error status with a body over the limit', '/404-big', 'server answered HTTP 404'],
    ['an error status with a web page', '/500-page', 'server answered HTTP 500'],
  ])('%s is the generic error: only a 2xx body is judged as a file', async (_name, path, expected) => {
    expect(await networkFailure(fetcher().fetch(main.url(path), documents))).toBe(expected);
  });

  it('a body cut short is the generic error', async () => {
    expect(await networkFailure(fetcher().fetch(main.url('/cut-short'), documents))).toMatch(/^request failed \(\S+\)$/);
  });

  it('keeps credentials, path and query out of the message and the log', async () => {
    const url = `http://user:hunter2@127.0.0.1:${main.port}/404?token=s3cr3t`;
    expect(await networkFailure(fetcher().fetch(url, audio), 'voice_url')).toBe('server answered HTTP 404');
    expect(logged[0]!.details).toEqual({ fetch: 'voice_url', origin: `http://127.0.0.1:${main.port}`, reason: 'server answered HTTP 404' });
  });
});

describe('media checks', () => {
  it('refuses a document where audio is expected', async () => {
    const error = await contentRefusal(fetcher().fetch(main.url('/png'), audio));
    expect(error).toMatchObject({ kind: 'unsupported_media', message: 'voice_url: got image/png, expected audio' });
  });

  it('refuses unrecognised bytes', async () => {
    const error = await contentRefusal(fetcher().fetch(main.url('/garbage'), documents));
    expect(error).toMatchObject({ kind: 'unsupported_media', message: 'file 1: unrecognised file type' });
  });

  it('refuses an empty body', async () => {
    const error = await contentRefusal(fetcher().fetch(main.url('/empty'), documents));
    expect(error).toMatchObject({ kind: 'unsupported_media', message: 'file 1: empty file' });
  });
});

describe("the gateway's own files", () => {
  const own = 'http://gateway.local/files/own';
  const RECORDING = Buffer.concat([WAV, Buffer.alloc(256 * 1024, 7)]);
  /** Opens the gateway's own URL as a stream of `bytes` in small chunks (`onChunk` as each is read), and tells whether the stream was closed. */
  function ownFile(bytes: Buffer, onChunk = () => {}) {
    function* chunks() {
      for (let start = 0; start < bytes.length; start += 1024) {
        onChunk();
        yield bytes.subarray(start, start + 1024);
      }
    }
    const stream = Readable.from(chunks());
    const open = async (url: string) => (url === own ? { size: bytes.length, stream } : undefined);
    return { open, closed: () => stream.destroyed };
  }
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'safe-fetch-own-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads its own URL from the store, and fetches any other', async () => {
    const local = withLocalFiles(fetcher({ allowLoopback: false }), ownFile(PNG).open);
    expect((await local.fetch(own, documents)).bytes.equals(PNG)).toBe(true);
    expect((await failure(local.fetch(main.url('/png'), documents))).kind).toBe('forbidden_url');
  });

  it('says what is wrong with a file it holds: no network was asked', async () => {
    const error = await failure(withLocalFiles(fetcher(), ownFile(PNG).open).fetch(own, audio));
    expect(error).toMatchObject({ kind: 'unsupported_media', message: 'voice_url: got image/png, expected audio' });
  });

  it('streams its own recording into the file, its size held in the download budget only while it is read', async () => {
    const budget = new ByteBudget(RECORDING.length, 60_000);
    const held: number[] = [];
    const file = ownFile(RECORDING, () => held.push(budget.heldBytes));
    const path = join(dir, 'recording.wav');
    const downloaded = await withLocalFiles(fetcher(), file.open, budget).download(own, { ...audio, path });
    expect(downloaded).toMatchObject({ path, size: RECORDING.length, media: { kind: 'audio', mediaType: 'audio/wav' } });
    expect((await readFile(path)).equals(RECORDING)).toBe(true);
    expect(held.length).toBeGreaterThan(1);
    expect(new Set(held)).toEqual(new Set([RECORDING.length]));
    expect(budget.heldBytes).toBe(0);
  });

  it('waits for room in the budget as a network download does, and closes the file it leaves unread', async () => {
    const budget = new ByteBudget(RECORDING.length, 50);
    const release = await budget.reserve(1, new AbortController().signal);
    const file = ownFile(RECORDING);
    const error = await failure(withLocalFiles(fetcher(), file.open, budget).download(own, { ...audio, path: join(dir, 'waited.wav') }));
    expect(error).toMatchObject({ kind: 'overloaded', retryable: true });
    expect(file.closed()).toBe(true);
    release();
  });

  it('refuses its own file of the wrong kind on download', async () => {
    const error = await failure(withLocalFiles(fetcher(), ownFile(PNG).open).download(own, { ...audio, path: join(dir, 'image') }));
    expect(error).toMatchObject({ kind: 'unsupported_media', message: 'voice_url: got image/png, expected audio' });
  });
});
