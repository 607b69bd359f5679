import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../config/index.js';
import { ENGINE_NAMES, type Engines } from '../engines/registry.js';
import { engineReport } from '../engines/engine-report.js';
import type { Metrics } from '../platform/metrics.js';
import { checkStore, type StoreDatabase } from '../platform/store/index.js';
import type { Authenticator } from './auth.js';

export interface HealthRoutesOptions {
  engines: Engines;
  metrics: Metrics;
  config: Config;
  auth: Authenticator;
  store: StoreDatabase;
}

/**
 * /healthz: the process answers. /readyz: every configured engine is ready and the database
 * answers; its status alone for a load balancer's probe, each engine's report (models, hashes,
 * reasons) and the store's for an operator token. /metrics: Prometheus, for an operator token.
 */
export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (app, { engines, metrics, config, auth, store }) => {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (request, reply) => {
    const statuses = Object.fromEntries(ENGINE_NAMES.map((name) => [name, engineReport(config, name, engines.status(name))]));
    const storeStatus = await checkStore(store);
    const ready = Object.values(statuses).every((s) => !s.configured || s.state === 'ready') && storeStatus.state === 'ready';
    const status = ready ? 'ready' : 'not_ready';
    return reply.code(ready ? 200 : 503).send(auth.showsOperatorDetail(request) ? { status, engines: statuses, store: storeStatus } : { status });
  });

  app.get('/metrics', { onRequest: auth.require('operator') }, async (_request, reply) => {
    const body = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(body);
  });
};
