/**
 * What the CPU can do that the engines size their work by: Linux lists each feature the
 * processor has in /proc/cpuinfo's `flags` line.
 */
import { readFileSync } from 'node:fs';

function cpuFlags(): Set<string> {
  let info = '';
  try {
    info = readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    // Not Linux: no flags known.
  }
  return new Set(/^flags\s*:(.*)$/m.exec(info)?.[1]?.trim().split(/\s+/) ?? []);
}

/**
 * Whether 8-bit integer products are summed without saturating: any CPU but an x86 one without
 * VNNI (whose 8-bit multiply-add, VPMADDUBSW, saturates its 16-bit pair sums).
 */
export function exactInt8DotProducts(): boolean {
  if (process.arch !== 'x64' && process.arch !== 'ia32') return true;
  const cpu = cpuFlags();
  return cpu.has('avx512_vnni') || cpu.has('avx_vnni');
}
