/** The self-test's table and verdict: what an operator reads and what monitoring acts on. */
import type { EngineName } from '../../contract/engines.js';
import type { CheckResult } from './checks.js';
import type { EngineView } from './gateway-client.js';

export const EXIT = { ok: 0, failed: 1, slowFirstCall: 2 } as const;

export interface Verdict {
  lines: string[];
  exitCode: (typeof EXIT)[keyof typeof EXIT];
}

const seconds = (ms: number | undefined) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`);

/**
 * One row per operation with its engine's device and the first and warm call, then a summary.
 * A first call slower than the warm one by more than `slowFirstMs` is flagged: on a GPU that is
 * the driver compiling PTX (a binary without real code for this GPU), elsewhere a cold load.
 * Exit status: 0 all passed, 1 a check failed (or was skipped under `requireAll`), 2 all passed
 * but a first call was slow.
 */
export function verdict(results: CheckResult[], engines: Partial<Record<EngineName, EngineView>>, slowFirstMs: number, requireAll: boolean): Verdict {
  const rows = [['operation', 'engine', 'device', 'result', 'first', 'warm', 'detail']];
  const flags: string[] = [];
  for (const result of results) {
    const slow = result.firstMs !== undefined && result.warmMs !== undefined && result.firstMs - result.warmMs > slowFirstMs;
    if (slow) {
      flags.push(
        `${result.operation}: the first call took ${seconds(result.firstMs)}, a warm one ${seconds(result.warmMs)}: ` +
          'likely a JIT compile (CUDA code without real code for this GPU: run mdt-gateway check-gpu) or a cold model load',
      );
    }
    const device = engines[result.engine]?.device ?? engines[result.engine]?.state ?? '?';
    rows.push([result.operation, result.engine, device, slow ? 'SLOW-FIRST' : result.outcome, seconds(result.firstMs), seconds(result.warmMs), result.detail]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const lines = rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd());
  const count = (outcome: CheckResult['outcome']) => results.filter((r) => r.outcome === outcome).length;
  const failed = count('failed') + (requireAll ? count('skipped') : 0);
  lines.push('', ...flags, `${count('ok')} passed, ${count('failed')} failed, ${count('skipped')} skipped`);
  return { lines, exitCode: failed > 0 ? EXIT.failed : flags.length > 0 ? EXIT.slowFirstCall : EXIT.ok };
}
