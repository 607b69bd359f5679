import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ENGINE_STATES, type EngineName, type EngineStatus } from '../contract/engines.js';
import type { LimiterObserver } from './limiter.js';
import { childProcessMemory, type ChildMemory } from './process/index.js';
import { RecentTraffic } from './recent-traffic.js';

/** What AI-4 reports: time per stage, each page's audit outcome, boxes painted per kind of datum, how much each audit reading read. */
export interface DeidObserver {
  stage(stage: string, seconds: number): void;
  audit(outcome: string): void;
  redactions(kind: string, count: number): void;
  readShare(reader: string, share: number): void;
}

export interface EngineGauges {
  status(name: EngineName): EngineStatus;
  running(name: EngineName): number;
  queued(name: EngineName): number;
}

/** All Prometheus series of one gateway instance, in a registry of its own (tests build many). */
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

  private readonly adviceDrafts = new Histogram({
    name: 'gateway_advice_draft_duration_seconds',
    help: 'Time to draft one AI-3 job, by outcome (succeeded, failed)',
    labelNames: ['outcome'] as const,
    buckets: [1, 5, 10, 30, 60, 120, 300, 600],
    registers: [this.registry],
  });

  private readonly adviceCallbackAttempts = new Counter({
    name: 'gateway_advice_callback_attempts_total',
    help: 'AI-3 callback POSTs by result: delivered (2xx) or failed (network error, timeout, other status)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  private readonly adviceFinished = new Histogram({
    name: 'gateway_advice_time_to_callback_seconds',
    help: 'From acceptance to the end of delivery, by final state (delivered, dead)',
    labelNames: ['state'] as const,
    buckets: [1, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400],
    registers: [this.registry],
  });

  /** Jobs per state, read from the store at each scrape: `dead` stays visible until the job is purged. */
  observeAdviceJobs(countByState: () => Promise<Record<string, number>>): void {
    new Gauge({
      name: 'gateway_advice_jobs',
      help: 'AI-3 jobs in the store by state',
      labelNames: ['state'] as const,
      registers: [this.registry],
      async collect() {
        for (const [state, count] of Object.entries(await countByState())) this.set({ state }, count);
      },
    });
  }

  adviceObserver() {
    return {
      drafted: (outcome: string, seconds: number) => this.adviceDrafts.observe({ outcome }, seconds),
      delivery: (delivered: boolean) => this.adviceCallbackAttempts.inc({ result: delivered ? 'delivered' : 'failed' }),
      finished: (state: string, seconds: number) => this.adviceFinished.observe({ state }, seconds),
    };
  }

  private readonly deidStages = new Histogram({
    name: 'gateway_deid_stage_seconds',
    help: 'AI-4 time per page and stage: ocr, detect, redact (paint and encode a page), audit (re-OCR), encode (the whole file)',
    labelNames: ['stage'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  private readonly deidAudits = new Counter({
    name: 'gateway_deid_audit_total',
    help: 'AI-4 pages by audit outcome: clean, clean_after_retry (boxed again), failed (data survived, file withheld), unreadable (OCR confidence too low, or the audit could not read the page; file withheld)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly deidRedactions = new Counter({
    name: 'gateway_deid_redactions_total',
    help: 'AI-4 boxes painted, by kind of personal datum',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  private readonly deidReadShares = new Histogram({
    name: 'gateway_deid_audit_read_share',
    help: "AI-4 audit readings by the share of the first reading's text (outside the paint) they read again, by reader (first, independent); under DEID_AUDIT_MIN_READ the page is withheld",
    labelNames: ['reader'] as const,
    buckets: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1],
    registers: [this.registry],
  });

  deidObserver(): DeidObserver {
    return {
      stage: (stage, seconds) => this.deidStages.observe({ stage }, seconds),
      audit: (outcome) => this.deidAudits.inc({ outcome }),
      redactions: (kind, count) => this.deidRedactions.inc({ kind }, count),
      readShare: (reader, share) => this.deidReadShares.observe({ reader }, share),
    };
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
