import type { FastifyBaseLogger } from 'fastify';
import type { DocumentLimits } from '../documents/index.js';
import type { Engines } from '../engines/registry.js';
import type { SafeFetcher } from '../platform/fetch/index.js';
import type { DeidObserver } from '../platform/metrics.js';
import type { Stores } from '../platform/store/index.js';

/** What an operation may use: engines (through their limiters), safe fetch, stores, the caller's signal. */
export interface OperationContext {
  engines: Engines;
  fetcher: SafeFetcher;
  stores: Stores;
  /** Pages per file and pixels per page that document operations accept. */
  documentLimits: DocumentLimits;
  /** How long produced files (AI-4) stay downloadable, in seconds. */
  fileUrlTtlSeconds: number;
  /** AI-4: the page confidence below which a page is withheld, the least share an audit reading must read again, and its metrics. */
  deid: { minConfidence: number; minReadShare: number; observer: DeidObserver };
  /** Fires when the client disconnects; pass it to every fetch and engine call. */
  signal: AbortSignal;
  log: FastifyBaseLogger;
}

export type OperationHandler<Req, Res> = (request: Req, context: OperationContext) => Promise<Res>;
