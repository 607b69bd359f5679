import type { FastifyReply } from 'fastify';
import { GatewayError } from '../errors.js';

/**
 * An AbortSignal that fires when the client disconnects before the response is sent, so a
 * queued engine task is dropped and a running one can stop.
 */
export function clientAbortSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableEnded) {
      controller.abort(new GatewayError('cancelled', 'the client closed the connection before the answer was ready'));
    }
  });
  return controller.signal;
}
