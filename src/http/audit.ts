import type { FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { LIMITS } from '../contract/limits.js';
import type { AuditTrail } from '../platform/audit-trail.js';
import { onRequestFinished, operationOf } from './request-log.js';

export interface AuditOptions {
  trail: AuditTrail;
  /** The routes under these paths are audited (the AI operations, the operator routes). */
  prefixes: readonly string[];
}

/**
 * One audit record per request to an audited route, answered or abandoned: identifiers, outcome
 * and duration, read from what the request decided (its caller's token name, its body's
 * request_id and upload_file_ids once validated), never from its body, URL or headers.
 */
export const auditRequests = fastifyPlugin<AuditOptions>(async (app, { trail, prefixes }) => {
  const arrivedAt = new WeakMap<FastifyRequest, number>();
  app.addHook('onRequest', async (request) => {
    arrivedAt.set(request, Date.now());
  });
  onRequestFinished(app, (request, reply, status, errorKind) => {
    const route = request.routeOptions.url;
    if (route === undefined || !prefixes.some((prefix) => route.startsWith(prefix))) return;
    trail.record({
      at: arrivedAt.get(request) ?? Date.now(),
      caller: request.callerName ?? null,
      operation: operationOf(request),
      method: request.method,
      requestId: request.bodyRequestId ?? pathRequestId(request) ?? null,
      uploadFileIds: request.uploadFileIds ?? null,
      status,
      errorKind: errorKind ?? null,
      durationMs: Math.round(reply.elapsedTime),
    });
  });
});

/** The request_id a job route names in its path (`/ai/v1/report-advice-draft/:request_id`), if it could be one. */
function pathRequestId(request: FastifyRequest): string | undefined {
  const { request_id: requestId } = (request.params ?? {}) as { request_id?: unknown };
  return typeof requestId === 'string' && requestId.length <= LIMITS.requestIdChars ? requestId : undefined;
}
