import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** True when `presented` equals one of the tokens; every comparison takes the same time. */
export function tokenMatches(presented: string, tokenDigests: readonly Buffer[]): boolean {
  const candidate = digest(presented);
  let matched = false;
  for (const expected of tokenDigests) matched = timingSafeEqual(candidate, expected) || matched;
  return matched;
}

/** With API_TOKENS set, every /ai/ route requires `Authorization: Bearer <token>`. */
export function registerBearerAuth(app: FastifyInstance, tokens: readonly string[]): void {
  if (tokens.length === 0) return;
  const tokenDigests = tokens.map(digest);
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/ai/')) return;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match?.[1] || !tokenMatches(match[1], tokenDigests)) {
      throw new GatewayError('unauthorized', 'a valid bearer token is required (Authorization: Bearer <token>)');
    }
  });
}
