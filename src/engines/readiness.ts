import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '../errors.js';
import type { EngineName, EngineStatus } from './types.js';

const POLL_MS = 50;

/**
 * What a client is told to wait while an engine is starting: a small model loads in a few
 * seconds, a large one in minutes; each early retry costs one quick refusal, nothing more.
 */
export const STARTING_RETRY_AFTER_SECONDS = 5;

/**
 * The refusal for a call to an engine that is not ready. `starting` (the first load, or a
 * restart after its process died) passes by itself: retryable, with Retry-After. `unavailable`
 * (not installed, not configured) and `failed` (its model or runtime is broken) need an
 * operator: not retryable.
 */
export function notReadyError(name: EngineName, status: EngineStatus): GatewayError {
  const message = `the ${name} engine is ${status.state}: ${status.reason ?? 'no reason given'}`;
  return status.state === 'starting'
    ? new GatewayError('engine_unavailable', message, { retryable: true, retryAfterSeconds: STARTING_RETRY_AFTER_SECONDS })
    : new GatewayError('engine_unavailable', message);
}

/**
 * Waits while an engine is `starting` (models load in the background) and returns its status
 * once it is anything else, or when `timeoutMs` has passed. The wait never keeps the process alive.
 */
export async function settledStatus(status: () => EngineStatus, timeoutMs: number): Promise<EngineStatus> {
  const deadline = Date.now() + timeoutMs;
  while (status().state === 'starting' && Date.now() < deadline) await sleep(POLL_MS, undefined, { ref: false });
  return status();
}

/** settledStatus, for callers that cannot go on without the engine: anything but `ready` throws with its reason. */
export async function readyStatus(name: string, status: () => EngineStatus, timeoutMs: number): Promise<EngineStatus> {
  const settled = await settledStatus(status, timeoutMs);
  if (settled.state !== 'ready') throw new Error(`the ${name} engine is ${settled.state}: ${settled.reason ?? 'no reason given'}`);
  return settled;
}
