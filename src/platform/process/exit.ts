/** How long a child gets after SIGTERM before SIGKILL, unless its owner says otherwise. */
export const STOP_GRACE_MS = 2_000;

/** "code 3" / "signal SIGKILL": how a process ended, for messages and logs (never its output). */
export function describeExit(code: number | null | undefined, signal: string | null | undefined): string {
  return signal ? `signal ${signal}` : `code ${code ?? 'unknown'}`;
}
