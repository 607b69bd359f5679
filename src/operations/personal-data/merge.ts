/**
 * Overlapping detections become one span. Its kind is the first specific kind among
 * them: 'identifier' (the fail-closed catch-all) yields to any other.
 */
import type { Detection } from './types.js';

function absorb(into: Detection, other: Detection): Detection {
  const specific = into.kind === 'identifier' && other.kind !== 'identifier' ? other : into;
  return { start: into.start, end: Math.max(into.end, other.end), kind: specific.kind, rule: specific.rule };
}

export function mergeDetections(detections: readonly Detection[]): Detection[] {
  const sorted = [...detections].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Detection[] = [];
  for (const detection of sorted) {
    const last = merged.at(-1);
    if (last && detection.start < last.end) merged[merged.length - 1] = absorb(last, detection);
    else merged.push({ ...detection });
  }
  return merged;
}
