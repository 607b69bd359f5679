/**
 * What /console/api answers: the routes build these and the page's modules read them (through JSDoc
 * imports, which vanish in the browser). Only types from modules the browser's typecheck can load
 * (no Node): the contract's and the traffic summary's.
 */
import type { AdviceJobState, AdviceJobStatus } from '../../contract/advice.js';
import type { EngineName, EngineReport } from '../../contract/engines.js';
import type { TrafficSummary } from '../../platform/recent-traffic.js';

/** One engine on the Status panel: its report and its queue. */
export interface ConsoleEngine extends EngineReport {
  running: number;
  queued: number;
  /** Tasks that waited for a free slot (one that found a slot free does not count). */
  queue_waits: number;
  mean_queue_wait_seconds: number;
}

/** GET /console/api/status */
export interface ConsoleStatus {
  version: string;
  engines: Record<EngineName, ConsoleEngine>;
  traffic: TrafficSummary;
  advice: { counts: Record<AdviceJobState, number>; recent: AdviceJobStatus[] };
}

/** POST /console/api/uploads */
export interface ConsoleUpload {
  /** The gateway's own signed link, as the operation receives it. */
  file_url: string;
  /** The same link as a path on the console's origin. */
  path: string;
  token: string;
}

/** GET /console/api/advice/:request_id/received: what the reference receiver stored for a job. */
export interface ReceivedReport {
  ai_status: string | null;
  /** The draft as the platform received it. */
  ai_advice_ref: string | null;
}
