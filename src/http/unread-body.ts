import type { IncomingMessage } from 'node:http';
import fastifyPlugin from 'fastify-plugin';

export interface UnreadBodyOptions {
  /** The most of an unread body that is read and dropped before the answer goes out. */
  discardBytes: number;
  /** The longest that takes; a client too slow for it gets the answer and a closed connection. */
  discardWithinMs: number;
}

/**
 * An answer sent before the request's body was read (a body over BODY_LIMIT_BYTES, a refused
 * token, a wrong Content-Type, an unknown route) closes the connection under a client that is
 * still writing: it sees EPIPE or a reset, never the answer. So the rest of the body is read
 * and dropped first, within bounds, then the answer goes out and the connection is closed.
 * A request whose body was read (every accepted one) costs one property check.
 */
export const unreadBody = fastifyPlugin<UnreadBodyOptions>(async (app, bounds) => {
  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    if (raw.complete || raw.readableEnded || raw.destroyed) {
      done(null, payload);
      return;
    }
    reply.header('connection', 'close');
    void discardBody(raw, bounds).then(() => done(null, payload));
  });
});

/** Reads and drops what is left of a request body; resolves at its end, a bound, or the socket's close. */
function discardBody(raw: IncomingMessage, { discardBytes, discardWithinMs }: UnreadBodyOptions): Promise<void> {
  return new Promise((resolve) => {
    let dropped = 0;
    const finish = () => {
      clearTimeout(timer);
      raw.off('data', onData).off('end', finish).off('close', finish).off('error', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > discardBytes) finish();
    };
    const timer = setTimeout(finish, discardWithinMs);
    raw.on('data', onData).once('end', finish).once('close', finish).once('error', finish);
    raw.resume();
  });
}
