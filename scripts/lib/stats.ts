/**
 * The value `fraction` (0 to 1) of the way up `values` once sorted: the nearest rank at or above
 * it, so the median of an even count is the upper of the middle two. NaN when there are none.
 */
export function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

export const median = (values: readonly number[]): number => percentile(values, 0.5);
