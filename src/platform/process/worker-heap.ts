/**
 * The old-space size below which V8 leaves a worker thread's heap uncompacted. V8 counts the
 * memory of array buffers allocated since the last full collection (mark-compact) against the
 * old generation's limit, which it sets from the live JS heap alone: a worker whose JS heap is
 * small (an OCR worker's is ~14 MB) while each task allocates tens of MB of pixels and tensors
 * (freed by the cheap young collections) runs a full collection every task or more often. V8
 * takes a floor under that limit from its initial old-space size, read when an isolate is made;
 * the flag is the process's, so it holds for every worker thread started after it is set.
 */
import { setFlagsFromString } from 'node:v8';

/** An operator who started node with an initial old-space size of their own keeps it. */
const SET_BY_OPERATOR = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((flag) => /^--initial[-_]old[-_]space[-_]size\b/.test(flag));

let floorMb = 0;

/**
 * Worker threads started from now on run no full collection while their old space and the array
 * buffers allocated since the last stay under `megabytes`; a lower floor than one set already
 * changes nothing, and neither does any where node was started with its own.
 */
export function raiseWorkerOldSpaceFloor(megabytes: number): void {
  if (SET_BY_OPERATOR || megabytes <= floorMb) return;
  setFlagsFromString(`--initial-old-space-size=${megabytes}`);
  floorMb = megabytes;
}
