import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError } from '../errors.js';
import { describeError } from '../platform/logger.js';

/** Framework failures mapped to our kinds, with our own words: fastify's messages may quote the body. */
const FRAMEWORK_ERRORS: Record<string, () => GatewayError> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new GatewayError('unsupported_media', 'Content-Type must be application/json'),
  FST_ERR_CTP_BODY_TOO_LARGE: () => new GatewayError('payload_too_large', 'request body is larger than BODY_LIMIT_BYTES'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new GatewayError('invalid_request', 'request body is empty; a JSON object is required'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => new GatewayError('invalid_request', 'request body is not valid JSON'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    new GatewayError('invalid_request', 'Content-Length does not match the request body'),
  FST_ERR_BAD_URL: () => new GatewayError('invalid_request', 'the request URL is malformed'),
  FST_ERR_MAX_PARAM_LENGTH: () => new GatewayError('invalid_request', 'a path segment of the URL is too long'),
};

export function toGatewayError(error: unknown): GatewayError {
  if (isGatewayError(error)) return error;
  const fastifyError = error as Partial<FastifyError>;
  const mapped = fastifyError.code ? FRAMEWORK_ERRORS[fastifyError.code] : undefined;
  if (mapped) return mapped();
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return new GatewayError('invalid_request', 'request body is not valid JSON');
  }
  if (fastifyError.statusCode === 413) return FRAMEWORK_ERRORS.FST_ERR_CTP_BODY_TOO_LARGE!();
  if (fastifyError.statusCode !== undefined && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new GatewayError('invalid_request', 'the request could not be read');
  }
  return new GatewayError('internal', 'an internal error occurred; it has been logged', { cause: error });
}

/** What an error looks like on the wire: `{error:{kind,message,retryable}}`, or the shape an operation's contract gives it. */
export type ErrorBodyOf = (error: GatewayError) => unknown;

export const standardErrorBody: ErrorBodyOf = ({ kind, message, retryable }) => ({ error: { kind, message, retryable } });

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  bodyOf: ErrorBodyOf = standardErrorBody,
): FastifyReply {
  const gatewayError = toGatewayError(error);
  reply.errorKind = gatewayError.kind;
  if (gatewayError.kind === 'internal') {
    request.log.error(
      { request_id: request.bodyRequestId, err: describeError(gatewayError.cause ?? error) },
      'internal error',
    );
  }
  if (gatewayError.retryAfterSeconds !== undefined) reply.header('retry-after', String(gatewayError.retryAfterSeconds));
  if (gatewayError.kind === 'unauthorized') reply.header('www-authenticate', 'Bearer');
  return reply.code(gatewayError.status).type('application/json; charset=utf-8').send(bodyOf(gatewayError));
}

/** A context's error and not-found handlers, answering in its error shape. */
export function useErrorShape(context: FastifyInstance, bodyOf: ErrorBodyOf): void {
  context.setErrorHandler((error, request, reply) => sendError(request, reply, error, bodyOf));
  context.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new GatewayError('not_found', 'no such route; the API is described at /docs'), bodyOf),
  );
}

declare module 'fastify' {
  interface FastifyReply {
    errorKind: string | undefined;
  }
}
