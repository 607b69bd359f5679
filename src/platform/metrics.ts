import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ENGINE_STATES, type EngineName, type EngineStatus } from '../contract/engines.js';
import type { ByteBudget } from './fetch/budget.js';
import type { LimiterObserver } from './limiter.js';
import { childProcessMemory, type ChildMemory } from './process/index.js';
import { RecentTraffic } from './recent-traffic.js';
import type { StoreDatabase } from './store/index.js';

export interface EngineGauges {
  status(name: EngineName): EngineStatus;
  running(name: EngineName): number;
  queued(name: EngineName): number;
}

/**
 * The gateway's own Prometheus series (HTTP, engines, processes) in a registry of its own (tests
 * build many); each operation adds its series to `registry`.
 */
export class Metrics {
  readonly registry = new Registry();

  /** The last minutes of AI requests, for the operator's console. */
  readonly recentTraffic = new RecentTraffic();

  readonly httpRequests = new Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests by operation, status code and error kind',
    labelNames: ['operation', 'status', 'error_kind'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'HTTP request latency by operation',
    labelNames: ['operation'] as const,
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });

  private readonly queueWait = new Histogram({
    name: 'gateway_engine_queue_wait_seconds',
    help: 'Time a task waited in an engine queue before it ran',
    labelNames: ['engine'] as const,
    buckets: [0.001, 0.01, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });

  private readonly rejections = new Counter({
    name: 'gateway_engine_rejections_total',
    help: 'Engine tasks refused by the limiter: overloaded (queue full), timeout (queue deadline), cancelled (client gone)',
    labelNames: ['engine', 'reason'] as const,
    registers: [this.registry],
  });

  constructor(engines: EngineGauges, engineNames: readonly EngineName[]) {
    collectDefaultMetrics({ register: this.registry, prefix: 'gateway_' });
    const perEngine = (name: string, help: string, read: (engine: EngineName) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['engine'] as const,
        registers: [this.registry],
        collect() {
          for (const engine of engineNames) this.set({ engine }, read(engine));
        },
      });
    perEngine('gateway_engine_running', 'Engine tasks running now', (e) => engines.running(e));
    perEngine('gateway_engine_queue_depth', 'Engine tasks waiting in the queue now', (e) => engines.queued(e));
    perEngine('gateway_engine_ready', '1 when the engine is ready to serve, else 0', (e) => (engines.status(e).state === 'ready' ? 1 : 0));
    this.observeChildProcesses();
    new Gauge({
      name: 'gateway_engine_state',
      help: '1 for the state each engine is in now, 0 for the others',
      labelNames: ['engine', 'state'] as const,
      registers: [this.registry],
      collect() {
        for (const engine of engineNames) {
          const current = engines.status(engine).state;
          for (const state of ENGINE_STATES) this.set({ engine, state }, state === current ? 1 : 0);
        }
      },
    });
  }

  /**
   * Memory of the processes the gateway runs, by command, read at each scrape: `node` is the LLM
   * process, `whisper-cli` and `ffmpeg` the ASR runs under way. OCR runs in worker threads, so
   * its memory is in the gateway's own gateway_process_resident_memory_bytes.
   */
  private observeChildProcesses(): void {
    // The registry collects every metric at once: both gauges share one reading of /proc.
    let reading: Promise<ChildMemory[]> | undefined;
    const read = () => (reading ??= childProcessMemory().finally(() => (reading = undefined)));
    const perCommand = (name: string, help: string, value: (child: ChildMemory) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['command'] as const,
        registers: [this.registry],
        async collect() {
          const children = await read();
          this.reset();
          for (const child of children) this.inc({ command: child.command }, value(child));
        },
      });
    perCommand(
      'gateway_child_process_resident_memory_bytes',
      "Resident memory of the gateway's child processes now, summed by command (node: the LLM process; whisper-cli, ffmpeg: ASR runs)",
      (child) => child.residentBytes,
    );
    perCommand('gateway_child_processes', "The gateway's child processes running now, by command", () => 1);
  }

  /** Per channel the store LISTENs on (replicas on PostgreSQL): whether its connection is open. */
  observeStore(database: Pick<StoreDatabase, 'listening'>): void {
    new Gauge({
      name: 'gateway_store_listen_connected',
      help: "1 while the store's LISTEN connection on a channel is open, 0 while it is being reopened (work is then found by polling)",
      labelNames: ['channel'] as const,
      registers: [this.registry],
      collect() {
        for (const { channel, connected } of database.listening()) this.set({ channel }, connected ? 1 : 0);
      },
    });
  }

  /** Bytes the downloads in flight hold (FETCH_MAX_IN_FLIGHT_BYTES), and downloads waiting for room. */
  observeDownloads(budget: Pick<ByteBudget, 'heldBytes' | 'waitingCount'>): void {
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(read());
        },
      });
    gauge('gateway_download_bytes', 'Bytes reserved by the files and recordings being downloaded now', () => budget.heldBytes);
    gauge('gateway_downloads_waiting', 'Downloads waiting for room in FETCH_MAX_IN_FLIGHT_BYTES now', () => budget.waitingCount);
  }

  /** Per engine: tasks that waited in its queue since start, and their mean wait. */
  async queueWaits(): Promise<Record<string, { count: number; meanSeconds: number }>> {
    const waits: Record<string, { count: number; sum: number }> = {};
    for (const { metricName, labels, value } of (await this.queueWait.get()).values) {
      const engine = String(labels.engine);
      const wait = (waits[engine] ??= { count: 0, sum: 0 });
      if (metricName?.endsWith('_count')) wait.count = value;
      if (metricName?.endsWith('_sum')) wait.sum = value;
    }
    return Object.fromEntries(
      Object.entries(waits).map(([engine, { count, sum }]) => [engine, { count, meanSeconds: count ? sum / count : 0 }]),
    );
  }

  limiterObserver(engine: EngineName): LimiterObserver {
    return {
      queueWait: (seconds) => this.queueWait.observe({ engine }, seconds),
      rejected: (reason) => this.rejections.inc({ engine, reason }),
    };
  }
}
