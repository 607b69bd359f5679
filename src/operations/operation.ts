import type { Registry } from 'prom-client';
import type { z } from 'zod';
import type { AdviceJobState, AdviceJobStatus } from '../contract/advice.js';
import type { OperationContract } from '../contract/operations.js';
import type { Config } from '../config/index.js';
import type { Engines } from '../engines/registry.js';
import type { Logger } from '../platform/logger.js';
import type { Migration, Stores } from '../platform/store/index.js';
import type { OperationContext, OperationHandler } from './context.js';

/** What the gateway hands an operation when it starts, once the stores are open. */
export interface OperationEnvironment {
  config: Config;
  engines: Engines;
  stores: Stores;
  logger: Logger;
  /** The gateway's Prometheus registry: an operation adds its own series to it. */
  metrics: Registry;
}

/**
 * The jobs of an operation that accepts work at once and finishes it later (AI-3), by the
 * request_id they were submitted under.
 */
export interface DeferredJobs {
  status(requestId: string): Promise<AdviceJobStatus>;
  /** Delivers a dead job's result again; its status after. */
  redeliver(requestId: string): Promise<AdviceJobStatus>;
  /** The jobs changed last, newest first. */
  recent(limit: number): Promise<AdviceJobStatus[]>;
  countByState(): Promise<Record<AdviceJobState, number>>;
}

export interface StartedOperation<Req = never> {
  /** Answers one request its contract validated. */
  handle(request: Req, context: OperationContext): Promise<unknown>;
  jobs?: DeferredJobs;
  /** Stops what it runs in the background. */
  close?(): Promise<void>;
}

/**
 * One AI operation as the gateway registers it (operations/index.ts lists them): its wire
 * contract, the tables it keeps, and how it starts. Everything else stays in its folder.
 */
export interface Operation<Req extends z.ZodType = z.ZodType> {
  contract: OperationContract<Req, z.ZodType, string>;
  /** Its own tables, migrated with the gateway's when the stores open. */
  migrations?: readonly Migration[];
  start(environment: OperationEnvironment): StartedOperation<z.output<Req>> | Promise<StartedOperation<z.output<Req>>>;
}

/** An operation whose handler needs nothing but the request context. */
export function statelessOperation<Req extends z.ZodType>(
  contract: OperationContract<Req, z.ZodType, string>,
  handle: OperationHandler<z.output<Req>, unknown>,
): Operation<Req> {
  return { contract, start: () => ({ handle }) };
}
