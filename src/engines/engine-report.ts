import type { Config } from '../config/index.js';
import type { EngineReport } from '../contract/engines.js';
import type { EngineName, EngineStatus } from './types.js';

function threadsOf(config: Config, name: EngineName): number {
  if (name === 'llm') return config.llm.backend === 'local' ? config.llm.threads : 0;
  if (name === 'asr') return config.asr.threads;
  return 1;
}

export function engineReport(config: Config, name: EngineName, status: EngineStatus): EngineReport {
  return { ...status, threads: threadsOf(config, name), concurrency: config[name].maxRunning };
}

const COLUMNS: Array<[string, (name: string, report: EngineReport) => string]> = [
  ['engine', (name) => name],
  ['state', (_name, r) => r.state],
  ['model', (_name, r) => r.model ?? '-'],
  ['sha256', (_name, r) => (r.verified === undefined ? '-' : r.verified ? 'verified' : 'unverified')],
  ['device', (_name, r) => r.device ?? '-'],
  ['threads', (_name, r) => String(r.threads)],
  ['concurrency', (_name, r) => String(r.concurrency)],
  ['reason', (_name, r) => r.reason ?? ''],
];

/** A fixed-width text table, one row per engine. */
export function formatEngineReport(reports: Record<string, EngineReport>): string {
  const rows = [COLUMNS.map(([title]) => title), ...Object.entries(reports).map(([name, r]) => COLUMNS.map(([, cell]) => cell(name, r)))];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}
