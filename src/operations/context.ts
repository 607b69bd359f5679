import type { FastifyBaseLogger } from 'fastify';
import type { DocumentLimits } from '../documents/index.js';
import type { Engines } from '../engines/registry.js';
import type { SafeFetcher } from '../platform/fetch/index.js';
import type { Stores } from '../platform/store/index.js';

/** What every operation may use on a request: engines (through their limiters), safe fetch, stores, the caller's signal. */
export interface OperationContext {
  engines: Engines;
  fetcher: SafeFetcher;
  stores: Stores;
  /** Pages per file and pixels per page that document operations accept. */
  documentLimits: DocumentLimits;
  /** Fires when the client disconnects; pass it to every fetch and engine call. */
  signal: AbortSignal;
  log: FastifyBaseLogger;
}

export type OperationHandler<Req, Res> = (request: Req, context: OperationContext) => Promise<Res>;
