import { createHash, timingSafeEqual } from 'node:crypto';
import type { onRequestAsyncHookHandler } from 'fastify';
import { GatewayError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who made the request, as the audit trail names it: the matched token's name, never the token. */
    callerName?: string;
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The index of the token `presented` equals, or -1; every comparison takes the same time. */
export function matchingToken(presented: string, tokenDigests: readonly Buffer[]): number {
  const candidate = digest(presented);
  let matched = -1;
  tokenDigests.forEach((expected, index) => {
    if (timingSafeEqual(candidate, expected)) matched = index;
  });
  return matched;
}

/** An onRequest hook that requires `Authorization: Bearer <token>` with one of `tokens`. */
export function bearerAuth(tokens: readonly string[]): onRequestAsyncHookHandler {
  const tokenDigests = tokens.map(digest);
  return async (request) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const index = match?.[1] ? matchingToken(match[1], tokenDigests) : -1;
    if (index < 0) {
      throw new GatewayError('unauthorized', 'a valid bearer token is required (Authorization: Bearer <token>)');
    }
    request.callerName = `token ${index + 1}`;
  };
}
