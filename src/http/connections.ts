/**
 * What bounds a client's connection before its request reaches a route: how long it may take to
 * send a request head and a whole request, how long it may idle between requests, and how many
 * connections may be open at once. None of it bounds the time the gateway takes to answer: a
 * socket idle timeout (fastify's `connectionTimeout`) would also cut a client waiting for a long
 * transcription, so none is set.
 */
import { STATUS_CODES, type ServerOptions } from 'node:http';
import type { Server, Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { GatewayError } from '../errors.js';
import { standardErrorBody } from './errors.js';

export interface ConnectionLimits {
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

/** Node checks the request and head timeouts this often (its default, 30 s, would let them run that much late). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;
/** A gateway at its connection cap says so in the log at most this often. */
const REFUSAL_LOG_INTERVAL_MS = 60_000;

/** The fastify options that carry the limits on receiving a request and on idle kept-alive connections. */
export function connectionOptions(limits: ConnectionLimits): {
  requestTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
  clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => void;
} {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    clientErrorHandler: answerClientError,
  };
}

/** A request Node could not take in (too slow, malformed), answered in the gateway's error shape before the connection closes. */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const answer = clientError(error.code);
    const body = JSON.stringify(standardErrorBody(answer));
    const { status } = answer;
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

function clientError(code: string | undefined): GatewayError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new GatewayError('request_timeout', 'the request was not received whole within REQUEST_TIMEOUT_MS (its head within HEADERS_TIMEOUT_MS)');
  }
  if (code === 'HPE_HEADER_OVERFLOW') return new GatewayError('payload_too_large', 'the request head is too large');
  return new GatewayError('invalid_request', 'the request could not be read');
}

/** At most `maxConnections` open at once: Node closes a connection beyond it as it opens; the log says so, once a minute at most. */
export function capConnections(server: Server, maxConnections: number, log: FastifyBaseLogger): void {
  server.maxConnections = maxConnections;
  let refused = 0;
  let loggedAt = -Infinity;
  server.on('drop', () => {
    refused++;
    if (performance.now() - loggedAt < REFUSAL_LOG_INTERVAL_MS) return;
    loggedAt = performance.now();
    log.warn({ refused, max_connections: maxConnections }, 'connections refused: MAX_CONNECTIONS are open');
    refused = 0;
  });
}
