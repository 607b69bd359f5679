import { createHash, timingSafeEqual } from 'node:crypto';
import type { onRequestAsyncHookHandler } from 'fastify';
import { GatewayError } from '../errors.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** True when `presented` equals one of the tokens; every comparison takes the same time. */
export function tokenMatches(presented: string, tokenDigests: readonly Buffer[]): boolean {
  const candidate = digest(presented);
  let matched = false;
  for (const expected of tokenDigests) matched = timingSafeEqual(candidate, expected) || matched;
  return matched;
}

/** An onRequest hook that requires `Authorization: Bearer <token>` with one of `tokens`. */
export function bearerAuth(tokens: readonly string[]): onRequestAsyncHookHandler {
  const tokenDigests = tokens.map(digest);
  return async (request) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match?.[1] || !tokenMatches(match[1], tokenDigests)) {
      throw new GatewayError('unauthorized', 'a valid bearer token is required (Authorization: Bearer <token>)');
    }
  };
}
