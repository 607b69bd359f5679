/**
 * Fetches file_url / voice_url bodies without letting a caller reach places it must not:
 * every hop is checked for scheme, allowlist and resolved address, and the address that is
 * checked is the one connected to (the check runs inside the socket's own DNS lookup).
 *
 * A caller learns nothing about the network from a failure: whatever went wrong on the way to
 * a whole 2xx body (DNS, a refused or resolved-to-refused address, a refused connection, a
 * timeout, TLS, an HTTP status, a redirect, a body cut short) it gets the same error, and the
 * reason goes to the log. Otherwise a token holder could map the hospital's LAN by asking for
 * files on its hosts and ports. Two kinds of answer stay honest, as they tell nothing the
 * caller did not know: what is judged on the URL as sent, before any packet (`forbidden_url`,
 * the configuration), and what is wrong with a file its host served with a 2xx (too large,
 * empty or of no accepted type: 413 / 415), which a platform must not retry.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { open } from 'node:fs/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import { buffer } from 'node:stream/consumers';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { GatewayError, isGatewayError } from '../../errors.js';
import { addressRefusal, parseAllowEntry, urlHost, urlRefusal } from './address-policy.js';
import type { AllowEntry } from './address-policy.js';
import type { DownloadBudget, Release } from './budget.js';
import { SNIFF_BYTES, sniffMedia } from './sniff.js';
import type { MediaKind, SniffedMedia } from './sniff.js';

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export interface SafeFetchOptions {
  /** FETCH_ALLOW_HOSTS entries, "host" or "host:port"; empty = no allowlist, else nothing else is fetched. */
  allowHosts: string[];
  /** FETCH_ALLOW_LOOPBACK: permits 127.0.0.0/8 and ::1 only (never link-local, metadata or unspecified). */
  allowLoopback: boolean;
  /** Per file. */
  maxBytes: number;
  /** Per file when a request accepts only audio (recordings run long); default maxBytes. */
  maxAudioBytes?: number;
  connectTimeoutMs: number;
  /** The whole fetch, redirects and body included. */
  totalTimeoutMs: number;
  /** Default 5. */
  maxRedirects?: number;
  /** DNS; defaults to dns.promises.lookup(host, { all: true }). */
  resolve?: Resolver;
  /** What the bodies being read may hold at once; none by default. */
  budget?: DownloadBudget;
}

export interface FetchedFile {
  bytes: Buffer;
  media: SniffedMedia;
  finalUrl: string;
}

/** A body streamed to disk, never held in memory whole. */
export interface DownloadedFile {
  path: string;
  size: number;
  media: SniffedMedia;
  finalUrl: string;
}

/** Where a failed fetch's reason is written: the request's logger. */
export interface FetchLog {
  warn(details: Record<string, unknown>, message: string): void;
}

export interface FetchRequest {
  accept: readonly MediaKind[];
  signal?: AbortSignal;
  /** Short name for error messages, e.g. "file 123" or "voice_url". */
  label?: string;
  log: FetchLog;
}

export interface SafeFetcher {
  fetch(url: string, opts: FetchRequest): Promise<FetchedFile>;
  /** Streams the body into `path` (created or truncated); the caller deletes it, also on failure. */
  download(url: string, opts: FetchRequest & { path: string }): Promise<DownloadedFile>;
}

interface FetcherConfig {
  allowList: readonly AllowEntry[];
  allowLoopback: boolean;
  maxBytes: number;
  maxAudioBytes: number;
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  maxRedirects: number;
  resolve: Resolver;
  budget: DownloadBudget | undefined;
}

/** One fetch in progress: the shared config plus what belongs to this call. */
interface FetchCall {
  config: FetcherConfig;
  label: string;
  maxBytes: number;
  /** Caller's signal combined with the total timeout. */
  signal: AbortSignal;
  callerSignal: AbortSignal | undefined;
  log: FetchLog;
  /** The hop being fetched, for the log. */
  hop: URL | undefined;
}

/** Why a fetch failed, for the log only. */
class FetchFailure extends Error {
  override readonly name = 'FetchFailure';
}

const DEFAULT_MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export function createSafeFetcher(options: SafeFetchOptions): SafeFetcher {
  const config: FetcherConfig = {
    allowList: options.allowHosts.map(parseAllowEntry),
    allowLoopback: options.allowLoopback,
    maxBytes: options.maxBytes,
    maxAudioBytes: options.maxAudioBytes ?? options.maxBytes,
    connectTimeoutMs: options.connectTimeoutMs,
    totalTimeoutMs: options.totalTimeoutMs,
    maxRedirects: options.maxRedirects ?? DEFAULT_MAX_REDIRECTS,
    resolve: options.resolve ?? resolveWithDns,
    budget: options.budget,
  };
  return {
    fetch: (url, request) => fetchFile(config, url, request),
    download: (url, request) => downloadFile(config, url, request),
  };
}

/** A file the gateway holds itself: its size, and its bytes as they are read. */
export interface LocalFile {
  size: number;
  stream: NodeJS.ReadableStream;
}

/** Opens a file the gateway holds itself, for a URL it recognises as its own; undefined for any other URL. */
export type LocalFileOpener = (url: string) => Promise<LocalFile | undefined>;

/**
 * `fetcher`, except for the URLs `openLocal` recognises (the console's uploads, behind the
 * gateway's own signed links): those are read from the gateway's store with no network hop, so
 * loopback stays refused for every other URL. Their media type is checked as a fetched file's
 * is, their size is reserved from `budget` while they are read, and a download streams into its
 * file without holding the file in memory.
 */
export function withLocalFiles(fetcher: SafeFetcher, openLocal: LocalFileOpener, budget?: DownloadBudget): SafeFetcher {
  const readHeld = async <T>(file: LocalFile, request: FetchRequest, read: () => Promise<T>): Promise<T> => {
    let release: Release | undefined;
    try {
      release = await budget?.reserve(file.size, request.signal ?? new AbortController().signal);
      return await read();
    } finally {
      release?.();
      destroyUnread(file.stream);
    }
  };
  return {
    async fetch(url, request) {
      const file = await openLocal(url);
      if (!file) return fetcher.fetch(url, request);
      const bytes = await readHeld(file, request, () => buffer(file.stream));
      return { bytes, media: identifyMedia(bytes, request.accept, request.label ?? 'url'), finalUrl: url };
    },
    async download(url, request) {
      const file = await openLocal(url);
      if (!file) return fetcher.download(url, request);
      const written = await readHeld(file, request, () => writeKeepingHead(request.path, file.stream as AsyncIterable<Buffer>));
      const media = identifyMedia(written.head, request.accept, request.label ?? 'url');
      return { path: request.path, size: written.size, media, finalUrl: url };
    },
  };
}

/** Closes a stream left before its end (a refused reservation, a failed write), so its file is not held open. */
function destroyUnread(stream: NodeJS.ReadableStream): void {
  if ('destroy' in stream && typeof stream.destroy === 'function') (stream.destroy as () => void)();
}

/**
 * Writes `chunks` into the file at `path` (created or truncated) as they come, never holding them
 * whole; returns the size written and the file's first SNIFF_BYTES, to sniff its type from.
 */
async function writeKeepingHead(path: string, chunks: AsyncIterable<Buffer>): Promise<{ size: number; head: Buffer }> {
  const file = await open(path, 'w');
  const head: Buffer[] = [];
  let headSize = 0;
  let size = 0;
  try {
    for await (const chunk of chunks) {
      if (headSize < SNIFF_BYTES) {
        head.push(chunk.subarray(0, SNIFF_BYTES - headSize));
        headSize += head.at(-1)!.length;
      }
      size += chunk.length;
      await file.write(chunk);
    }
  } finally {
    await file.close();
  }
  return { size, head: Buffer.concat(head, headSize) };
}

async function resolveWithDns(hostname: string): Promise<Array<{ address: string; family: 4 | 6 }>> {
  const addresses = await dnsLookup(hostname, { all: true });
  return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

function startCall(config: FetcherConfig, request: FetchRequest): FetchCall {
  const signals = [AbortSignal.timeout(config.totalTimeoutMs), ...(request.signal ? [request.signal] : [])];
  const audioOnly = request.accept.every((kind) => kind === 'audio');
  return {
    config,
    label: request.label ?? 'url',
    maxBytes: audioOnly ? config.maxAudioBytes : config.maxBytes,
    signal: AbortSignal.any(signals),
    callerSignal: request.signal,
    log: request.log,
    hop: undefined,
  };
}

/**
 * Judges the URL as sent (a `forbidden_url` names why), then fetches it and hands the 2xx answer
 * to `read`. A GatewayError from `read` judges the file its host served (too large, of no
 * accepted type) and reaches the caller as it is; any other failure from the first packet on
 * is the one generic `fetch_failed`.
 */
async function fetchOverNetwork<T>(
  config: FetcherConfig,
  rawUrl: string,
  request: FetchRequest,
  read: (call: FetchCall, response: http.IncomingMessage, url: URL) => Promise<T>,
): Promise<T> {
  const call = startCall(config, request);
  const url = parseHttpUrl(rawUrl, call.label);
  const refusal = hopRefusal(call, url);
  if (refusal !== null) throw new GatewayError('forbidden_url', `${call.label}: ${refusal}`);
  try {
    const { response, url: finalUrl } = await openFollowingRedirects(call, url);
    return await read(call, response, finalUrl);
  } catch (error) {
    throw isGatewayError(error) ? error : fetchFailed(call, error);
  }
}

function fetchFile(config: FetcherConfig, rawUrl: string, request: FetchRequest): Promise<FetchedFile> {
  return fetchOverNetwork(config, rawUrl, request, async (call, response, url) => {
    const bytes = await buffer(bodyOf(call, response));
    return { bytes, media: identifyMedia(bytes, request.accept, call.label), finalUrl: url.href };
  });
}

function downloadFile(config: FetcherConfig, rawUrl: string, request: FetchRequest & { path: string }): Promise<DownloadedFile> {
  return fetchOverNetwork(config, rawUrl, request, async (call, response, url) => {
    const { size, head } = await writeKeepingHead(request.path, bodyOf(call, response));
    const media = identifyMedia(head, request.accept, call.label);
    return { path: request.path, size, media, finalUrl: url.href };
  });
}

function parseHttpUrl(rawUrl: string, label: string): URL {
  try {
    return new URL(rawUrl);
  } catch {
    throw new GatewayError('forbidden_url', `${label}: not a valid http(s) URL`);
  }
}

async function openFollowingRedirects(
  call: FetchCall,
  start: URL,
): Promise<{ response: http.IncomingMessage; url: URL }> {
  let url = start;
  for (let redirects = 0; ; redirects += 1) {
    call.hop = url;
    const response = await sendRequest(call, url);
    const location = redirectLocation(response);
    if (location === undefined) {
      assertSuccessStatus(response);
      return { response, url };
    }
    response.destroy();
    if (redirects === call.config.maxRedirects) throw new FetchFailure(`more than ${redirects} redirects`);
    url = resolveLocation(location, url);
    const refusal = hopRefusal(call, url);
    if (refusal !== null) throw new FetchFailure(`redirect refused: ${refusal}`);
  }
}

// IP literals never reach the lookup function, so they are judged here; hostnames are judged on lookup.
function hopRefusal(call: FetchCall, url: URL): string | null {
  const refusal = urlRefusal(url, call.config.allowList);
  if (refusal !== null) return refusal;
  const host = urlHost(url);
  return isIP(host) === 0 ? null : addressRefusalOf(call, host);
}

function addressRefusalOf(call: FetchCall, address: string): string | null {
  const refusal = addressRefusal(address, { allowLoopback: call.config.allowLoopback });
  return refusal === null ? null : `host refused (${refusal})`;
}

function redirectLocation(response: http.IncomingMessage): string | undefined {
  return REDIRECT_STATUSES.has(response.statusCode ?? 0) ? response.headers.location : undefined;
}

function resolveLocation(location: string, current: URL): URL {
  try {
    return new URL(location, current);
  } catch {
    throw new FetchFailure('redirect to an invalid URL');
  }
}

function sendRequest(call: FetchCall, url: URL): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    // agent: false gives every request a fresh socket, so no pooled connection skips the checks.
    const request = client.request(url, { agent: false, lookup: checkedLookup(call), signal: call.signal }, resolve);
    request.on('error', reject);
    armConnectTimeout(call, request);
    request.end();
  });
}

/** A lookup that refuses the whole host if any of its addresses is refused. */
function checkedLookup(call: FetchCall): LookupFunction {
  return (hostname, options, callback) => {
    resolveAllowedAddresses(call, hostname).then(
      (addresses) => {
        const [first] = addresses;
        if (options.all) callback(null, addresses);
        else if (first) callback(null, first.address, first.family);
      },
      (error: Error) => callback(error, ''),
    );
  };
}

async function resolveAllowedAddresses(
  call: FetchCall,
  hostname: string,
): Promise<Array<{ address: string; family: 4 | 6 }>> {
  const addresses = await call.config.resolve(hostname);
  if (addresses.length === 0) throw new FetchFailure('host not found');
  for (const { address } of addresses) {
    const refusal = addressRefusalOf(call, address);
    if (refusal !== null) throw new FetchFailure(refusal);
  }
  return addresses;
}

function armConnectTimeout(call: FetchCall, request: http.ClientRequest): void {
  const timeoutMs = call.config.connectTimeoutMs;
  const timer = setTimeout(() => request.destroy(new FetchFailure(`connect timed out after ${timeoutMs} ms`)), timeoutMs);
  request.once('socket', (socket) => socket.once('connect', () => clearTimeout(timer)));
  request.once('close', () => clearTimeout(timer));
}

function assertSuccessStatus(response: http.IncomingMessage): void {
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) return;
  response.destroy();
  throw new FetchFailure(`server answered HTTP ${status}`);
}

/**
 * The body's chunks as they stream in; bytes are counted, and a Content-Length over the limit is
 * refused before reading. Only a 2xx body is read, so a file over the limit is the file's fault
 * (413), told as soon as it is known. The body's declared size (else the limit) is reserved from
 * the budget while it is read.
 */
async function* bodyOf(call: FetchCall, response: http.IncomingMessage): AsyncGenerator<Buffer> {
  const { maxBytes } = call;
  const declared = Number(response.headers['content-length']);
  if (declared > maxBytes) {
    response.destroy();
    throw tooLarge(call, maxBytes);
  }
  const release = await reserveRoom(call, response, Number.isInteger(declared) ? declared : maxBytes);
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw tooLarge(call, maxBytes); // leaving the loop destroys the response
      yield chunk;
    }
  } finally {
    release?.();
  }
}

/** Room in the budget for `bytes`; the response is dropped when none comes in time. */
async function reserveRoom(call: FetchCall, response: http.IncomingMessage, bytes: number): Promise<Release | undefined> {
  try {
    return await call.config.budget?.reserve(bytes, call.signal);
  } catch (error) {
    response.destroy();
    throw error;
  }
}

function tooLarge(call: FetchCall, maxBytes: number): GatewayError {
  return new GatewayError('payload_too_large', `${call.label}: file is larger than ${maxBytes} bytes`);
}

/** The media type of a whole file, sniffed from its bytes; a 415 naming what it is when it is of no accepted kind. */
function identifyMedia(bytes: Buffer, accept: readonly MediaKind[], label: string): SniffedMedia {
  if (bytes.length === 0) throw new GatewayError('unsupported_media', `${label}: empty file`);
  const media = sniffMedia(bytes);
  if (media === null) throw new GatewayError('unsupported_media', `${label}: unrecognised file type`);
  if (!accept.includes(media.kind)) {
    throw new GatewayError('unsupported_media', `${label}: got ${media.mediaType}, expected ${accept.join(' or ')}`);
  }
  return media;
}

/**
 * What the caller hears of a fetch that failed once on the network: the same kind, status,
 * retryable and message whatever the cause (a 404, a refused port or a timeout may each be
 * passing, so it says retry). The cause is logged with the origin of the hop that failed: never
 * its path or query (signed links carry credentials there, and paths may name patients), and
 * never Node's own messages, which may quote the URL.
 */
function fetchFailed(call: FetchCall, error: unknown): GatewayError {
  if (call.callerSignal?.aborted) return callerAbort(call);
  call.log.warn({ fetch: call.label, origin: call.hop?.origin, reason: failureReason(call, error) }, 'file fetch failed');
  return new GatewayError('fetch_failed', `${call.label}: could not fetch the URL; the gateway's log says why`, {
    retryable: true,
  });
}

function failureReason(call: FetchCall, error: unknown): string {
  if (error instanceof FetchFailure) return error.message;
  if (call.signal.aborted) return `timed out after ${call.config.totalTimeoutMs} ms`;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return `request failed (${code ?? 'network error'})`;
}

/** The caller gave up (the client left, or another file of the request failed): its reason, not the network's. */
function callerAbort(call: FetchCall): GatewayError {
  const reason: unknown = call.callerSignal?.reason;
  if (isGatewayError(reason)) return reason;
  return new GatewayError('fetch_failed', `${call.label}: aborted`, { retryable: true, cause: reason });
}
