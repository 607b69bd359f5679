import { describe, expect, it } from 'vitest';
import { convexHull } from '../../../../src/engines/ocr/ppocr/geometry.js';
import { mapRegions, type MapRegion } from '../../../../src/engines/ocr/ppocr/map-regions.js';

/** What a region's box is fitted to: its hull, and its mean probability. */
const fitted = (regions: readonly MapRegion[]) => regions.map(({ outline, meanProbability }) => ({ hull: convexHull(outline), meanProbability }));

/** The regions by definition: a flood fill from each pixel above the threshold not yet reached, to its four neighbours; every row's ends in the outline. */
function regionsByFloodFill(probability: Float32Array, width: number, height: number, threshold: number): MapRegion[] {
  const seen = new Uint8Array(width * height);
  const regions: MapRegion[] = [];
  for (let start = 0; start < seen.length; start++) {
    if (probability[start]! <= threshold || seen[start]) continue;
    seen[start] = 1;
    const stack = [start];
    const left = new Map<number, number>();
    const right = new Map<number, number>();
    let sum = 0;
    let count = 0;
    while (stack.length > 0) {
      const index = stack.pop()!;
      const [x, y] = [index % width, Math.floor(index / width)];
      sum += probability[index]!;
      count++;
      left.set(y, Math.min(left.get(y) ?? width, x));
      right.set(y, Math.max(right.get(y) ?? -1, x));
      const neighbours = [x + 1 < width && index + 1, x > 0 && index - 1, y + 1 < height && index + width, y > 0 && index - width];
      for (const next of neighbours) {
        if (next === false || seen[next] || probability[next]! <= threshold) continue;
        seen[next] = 1;
        stack.push(next);
      }
    }
    const rows = [...left.keys()].sort((a, b) => a - b);
    const outline = rows.flatMap((y) => [
      { x: left.get(y)!, y },
      { x: left.get(y)!, y: y + 1 },
      { x: right.get(y)! + 1, y },
      { x: right.get(y)! + 1, y: y + 1 },
    ]);
    regions.push({ outline, meanProbability: sum / count });
  }
  return regions;
}

/** A pseudo-random generator (xorshift), the same numbers for the same seed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/** A map of random probabilities, above 0.3 with about `density` of its pixels, in blobs and runs as text makes them. */
function randomMap(width: number, height: number, density: number, seed: number): Float32Array {
  const next = random(seed);
  const map = new Float32Array(width * height);
  for (let i = 0; i < map.length; i++) {
    const neighbour = i % width > 0 && map[i - 1]! > 0.3 ? 0.3 : 0;
    map[i] = next() < density + neighbour ? 0.3 + 0.7 * next() : 0.3 * next();
  }
  return map;
}

describe('regions of the probability map, labelled a run at a time', () => {
  it('are the regions a flood fill finds, in the same order, with the same hulls and mean probabilities', () => {
    for (const [width, height, density, seed] of [
      [64, 40, 0.2, 1],
      [97, 53, 0.45, 2],
      [200, 150, 0.35, 3],
      [31, 300, 0.55, 4],
      [1, 50, 0.5, 5],
      [50, 1, 0.5, 6],
    ] as const) {
      const map = randomMap(width, height, density, seed);
      const expected = regionsByFloodFill(map, width, height, 0.3);
      expect(expected.length).toBeGreaterThan(0);
      expect(fitted(mapRegions(map, width, height, 0.3))).toEqual(fitted(expected));
    }
  });

  it('joins runs only where they share a column, not at a corner, and finds a region that turns back up (a U) as one', () => {
    // Rows of a 6 × 4 map: a U, and a diagonal pair of pixels at the right.
    const rows = ['X..X.X', 'X..XX.', 'XXXX..', '......'];
    const map = Float32Array.from(rows.join(''), (c) => (c === 'X' ? 0.9 : 0));
    const regions = mapRegions(map, 6, 4, 0.3);
    expect(fitted(regions)).toEqual(fitted(regionsByFloodFill(map, 6, 4, 0.3)));
    expect(regions.map((r) => convexHull(r.outline))).toEqual([
      [{ x: 0, y: 0 }, { x: 4, y: 0 }, { x: 5, y: 1 }, { x: 5, y: 2 }, { x: 4, y: 3 }, { x: 0, y: 3 }],
      [{ x: 5, y: 0 }, { x: 6, y: 0 }, { x: 6, y: 1 }, { x: 5, y: 1 }],
    ]);
  });

  it('finds nothing in a map without text, and one region in a map all text', () => {
    expect(mapRegions(new Float32Array(40 * 30), 40, 30, 0.3)).toEqual([]);
    const full = mapRegions(new Float32Array(40 * 30).fill(0.75), 40, 30, 0.3);
    expect(full).toHaveLength(1);
    expect(full[0]!.meanProbability).toBe(0.75);
  });

  it('keeps its runs from map to map, a larger map after a smaller one and a smaller after it', () => {
    for (const [width, height, seed] of [[20, 20, 7], [300, 200, 8], [20, 20, 9]] as const) {
      const map = randomMap(width, height, 0.4, seed);
      expect(fitted(mapRegions(map, width, height, 0.3))).toEqual(fitted(regionsByFloodFill(map, width, height, 0.3)));
    }
  });
});
