import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { Metrics } from '../platform/metrics.js';

const CLIENT_CLOSED_REQUEST = 499;

type FinishedListener = (request: FastifyRequest, reply: FastifyReply, status: number, errorKind: string | undefined) => void;

/**
 * Calls `listener` once per request: when it is answered, or, with 499 and `cancelled`, when its
 * client went away first. For a plugin registered at the root (fastify-plugin), so it sees every route.
 */
export function onRequestFinished(app: FastifyInstance, listener: FinishedListener): void {
  app.addHook('onResponse', async (request, reply) => listener(request, reply, reply.statusCode, reply.errorKind));
  app.addHook('onRequest', async (request, reply) => {
    reply.raw.once('close', () => {
      if (!reply.raw.writableEnded) listener(request, reply, CLIENT_CLOSED_REQUEST, 'cancelled');
    });
  });
}

/** The operation's name, the route pattern for a route outside the AI operations, or `unmatched`. */
export const operationOf = (request: FastifyRequest): string =>
  request.routeOptions.config.operation ?? request.routeOptions.url ?? 'unmatched';

/**
 * One log line and one metrics sample per request, also for requests the client abandoned:
 * operation, route, status, duration, error kind. Never the URL's query, headers or body.
 */
export const requestLog = fastifyPlugin<{ metrics: Metrics }>(async (app, { metrics }) => {
  onRequestFinished(app, (request, reply, status, errorKind) => {
    const operation = operationOf(request);
    metrics.httpRequests.inc({ operation, status: String(status), error_kind: errorKind ?? '' });
    metrics.httpDuration.observe({ operation }, reply.elapsedTime / 1000);
    if (request.routeOptions.config.operation) metrics.recentTraffic.record(errorKind);
    const line = {
      ...(request.bodyRequestId ? { request_id: request.bodyRequestId } : {}),
      operation,
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status,
      duration_ms: Math.round(reply.elapsedTime),
      ...(errorKind ? { error_kind: errorKind } : {}),
    };
    if (status >= 500) request.log.warn(line, 'request failed');
    else request.log.info(line, status === CLIENT_CLOSED_REQUEST ? 'request cancelled by the client' : 'request completed');
  });
});
