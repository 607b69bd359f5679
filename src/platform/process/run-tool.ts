import { execa, type ExecaError } from 'execa';
import { GatewayError, isGatewayError } from '../../errors.js';
import { STOP_GRACE_MS, describeExit } from './exit.js';

const STDERR_LIMIT_BYTES = 256 * 1024;

export type ToolOutcome =
  | { ok: true; stderr: string }
  | { ok: false; failure: 'exit' | 'timeout' | 'spawn'; exitCode?: number; signal?: string; stderr: string };

export interface ToolRun {
  signal: AbortSignal;
  timeoutMs: number;
  /** Told the child's pid once it is spawned (tests check that an aborted child is gone). */
  onSpawn?: (pid: number) => void;
  /** Collect stderr (the last 256 KiB); otherwise it is discarded, as a broken file can make ffmpeg write megabytes. */
  keepStderr?: boolean;
}

/**
 * One run of a command-line tool (ffmpeg, whisper-cli); long-lived workers go through
 * supervisor.ts instead. execa starts it with no shell, stdin closed and stdout discarded (whisper-cli prints
 * the transcript there: patient text that must not be kept). An abort or the deadline kills it
 * (SIGTERM, then SIGKILL); an abort rethrows the signal's reason.
 */
export async function runTool(bin: string, args: readonly string[], run: ToolRun): Promise<ToolOutcome> {
  const child = execa(bin, args, {
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: run.keepStderr ? 'pipe' : 'ignore',
    maxBuffer: STDERR_LIMIT_BYTES,
    cancelSignal: run.signal,
    timeout: run.timeoutMs,
    forceKillAfterDelay: STOP_GRACE_MS,
    stripFinalNewline: true,
  });
  if (child.pid !== undefined) run.onSpawn?.(child.pid);
  try {
    const result = await child;
    return { ok: true, stderr: result.stderr ?? '' };
  } catch (caught) {
    const error = caught as ExecaError;
    if (error.isCanceled || run.signal.aborted) throw abortReason(run.signal);
    const stderr = typeof error.stderr === 'string' ? error.stderr : '';
    if (error.timedOut) return { ok: false, failure: 'timeout', stderr };
    if (error.exitCode === undefined && error.signal === undefined) return { ok: false, failure: 'spawn', stderr: error.shortMessage };
    return { ok: false, failure: 'exit', exitCode: error.exitCode, signal: error.signal, stderr };
  }
}

function abortReason(signal: AbortSignal): GatewayError {
  const reason: unknown = signal.reason;
  return isGatewayError(reason) ? reason : new GatewayError('cancelled', 'the request was cancelled');
}

/** "exited (code 3)" / "timed out", for messages and logs (never the tool's own output). */
export function describeFailure(outcome: Extract<ToolOutcome, { ok: false }>): string {
  if (outcome.failure === 'timeout') return 'timed out';
  if (outcome.failure === 'spawn') return 'could not be started';
  return `exited (${describeExit(outcome.exitCode, outcome.signal)})`;
}
