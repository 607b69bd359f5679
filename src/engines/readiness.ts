import { setTimeout as sleep } from 'node:timers/promises';
import type { EngineStatus } from './types.js';

const POLL_MS = 50;

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
