/**
 * Bearer tokens in two roles (config/access.ts): client tokens for /ai/v1, operator tokens for
 * the console API, AI-3 job views and redelivery, /metrics and the detailed /readyz. A gateway
 * with no token at all (loopback, or ALLOW_OPEN_ACCESS) lets every request through.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { NamedToken, Role } from '../config/index.js';
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

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Checks a request's bearer token against every configured token, of both roles. */
export class Authenticator {
  private readonly digests: Buffer[];

  constructor(
    private readonly access: { open: boolean; tokens: readonly NamedToken[] },
  ) {
    this.digests = access.tokens.map(({ token }) => digest(token));
  }

  /**
   * Whether `request` may reach a route of `role`: passes, naming the caller, or throws
   * `unauthorized` (no or an unknown token) or `forbidden` (a client token on an operator route).
   */
  authorize(request: FastifyRequest, role: Role): void {
    if (this.access.open) return;
    const presented = BEARER.exec(request.headers.authorization ?? '')?.[1];
    const caller = presented === undefined ? undefined : this.access.tokens[matchingToken(presented, this.digests)];
    if (caller === undefined) {
      throw new GatewayError('unauthorized', 'a valid bearer token is required (Authorization: Bearer <token>)');
    }
    if (role === 'operator' && caller.role !== 'operator') {
      throw new GatewayError('forbidden', 'this route needs an operator token (OPERATOR_TOKENS); a client token only reaches /ai/v1');
    }
    request.callerName = caller.name;
  }

  /** An onRequest hook that lets only callers of `role` through. */
  require(role: Role): onRequestAsyncHookHandler {
    return async (request) => this.authorize(request, role);
  }

  /**
   * Whether the request may see the operator's detail: on an open gateway yes; without an
   * Authorization header no (a load balancer's probe); with one, as `authorize` decides.
   */
  showsOperatorDetail(request: FastifyRequest): boolean {
    if (this.access.open) return true;
    if (request.headers.authorization === undefined) return false;
    this.authorize(request, 'operator');
    return true;
  }
}
