import { describe, expect, it } from 'vitest';
import { median, percentile } from '../../../scripts/lib/stats.js';

describe('percentile and median', () => {
  it('takes the nearest rank at or above the fraction, whatever the order given', () => {
    const values = [50, 10, 40, 20, 30];
    expect(median(values)).toBe(30);
    expect(percentile(values, 0)).toBe(10);
    expect(percentile(values, 0.9)).toBe(50);
    expect(percentile(values, 1)).toBe(50);
    expect(values).toEqual([50, 10, 40, 20, 30]);
  });

  it('gives the upper of the middle two for an even count, and NaN for none', () => {
    expect(median([4, 1, 3, 2])).toBe(3);
    expect(median([])).toBeNaN();
  });
});
