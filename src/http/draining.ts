import fastifyPlugin from 'fastify-plugin';
import { GatewayError } from '../errors.js';

/**
 * Once the gateway is closing, new requests are refused as retryable (another replica, or this
 * one after its restart, will answer them) and answers end their connection, or a pooling
 * client's idle keep-alive socket would hold the close open until the deadline.
 */
export const draining = fastifyPlugin(async (app) => {
  let closing = false;
  app.addHook('onRequest', async () => {
    if (closing) throw new GatewayError('overloaded', 'the gateway is shutting down', { retryAfterSeconds: 5 });
  });
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
});
