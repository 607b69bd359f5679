import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../config/index.js';
import { ENGINE_NAMES, type Engines } from '../engines/registry.js';
import { engineReport } from '../engines/engine-report.js';
import type { Metrics } from '../platform/metrics.js';
import { checkStore, type StoreDatabase } from '../platform/store/index.js';

export interface HealthRoutesOptions {
  engines: Engines;
  metrics: Metrics;
  config: Config;
  store: StoreDatabase;
}

/**
 * /healthz: the process answers. /readyz: every configured engine is ready and the database
 * answers. /metrics: Prometheus.
 */
export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (app, { engines, metrics, config, store }) => {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const statuses = Object.fromEntries(ENGINE_NAMES.map((name) => [name, engineReport(config, name, engines.status(name))]));
    const storeStatus = await checkStore(store);
    const ready = Object.values(statuses).every((s) => !s.configured || s.state === 'ready') && storeStatus.state === 'ready';
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', engines: statuses, store: storeStatus });
  });

  app.get('/metrics', async (_request, reply) => {
    const body = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(body);
  });
};
