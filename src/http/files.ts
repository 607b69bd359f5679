import type { FastifyPluginAsync } from 'fastify';
import { GatewayError } from '../errors.js';
import type { Stores } from '../platform/store/index.js';

/** Serves produced files behind signed, expiring tokens; never listable, never cached by proxies. */
export const fileRoutes: FastifyPluginAsync<{ stores: Stores }> = async (app, { stores }) => {
  app.get<{ Params: { token: string } }>('/files/:token', async (request, reply) => {
    const key = stores.fileUrls.verify(request.params.token);
    const blob = await stores.blobs.open(key);
    if (!blob) throw new GatewayError('not_found', 'the file no longer exists');
    return reply
      .type(blob.meta.contentType)
      .header('content-length', String(blob.meta.size))
      .header('cache-control', 'private, no-store')
      .header('x-content-type-options', 'nosniff')
      .send(blob.stream);
  });
};
