import type { FastifyInstance } from 'fastify';
import { ENGINE_NAMES, type Engines } from '../engines/registry.js';
import type { Config } from '../config/index.js';
import { engineReport } from '../engines/report.js';
import type { Metrics } from '../platform/metrics.js';

/** /healthz: the process answers. /readyz: every configured engine is ready. /metrics: Prometheus. */
export function registerHealthRoutes(app: FastifyInstance, engines: Engines, metrics: Metrics, config: Config): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const statuses = Object.fromEntries(ENGINE_NAMES.map((name) => [name, engineReport(config, name, engines.status(name))]));
    const ready = Object.values(statuses).every((s) => !s.configured || s.state === 'ready');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', engines: statuses });
  });

  app.get('/metrics', async (_request, reply) => {
    const body = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(body);
  });
}
