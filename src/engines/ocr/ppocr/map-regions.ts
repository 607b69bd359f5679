/**
 * The connected regions of the detector's probability map (pixels above the threshold, joined to
 * their four neighbours), labelled a run of pixels at a time: each row's runs join the runs of
 * the row above that they overlap. A map's text pixels come in runs a few dozen long: each pixel
 * is read once, in order, and a region is put together from its runs rather than its pixels.
 */
import type { Point } from '../plane.js';

export interface MapRegion {
  /** Corners of its pixels whose hull is the region's: the corners of its rows' ends that can lie on that hull. */
  outline: Point[];
  meanProbability: number;
}

/**
 * The runs of a map, in the order they were found (row by row, left to right), each labelled by
 * the first run of its region: `root` never points past the run itself, so the first run of a
 * region, and of the map, is the region's label.
 */
class Runs {
  count = 0;
  row = new Int32Array(0);
  start = new Int32Array(0);
  end = new Int32Array(0);
  sum = new Float64Array(0);
  root = new Int32Array(0);

  /** Runs from none, room kept from map to map (labelRuns runs to its end before another can start). */
  clear(): this {
    this.count = 0;
    return this;
  }

  add(row: number, start: number, end: number, sum: number): number {
    if (this.count === this.row.length) this.grow();
    const run = this.count++;
    this.row[run] = row;
    this.start[run] = start;
    this.end[run] = end;
    this.sum[run] = sum;
    this.root[run] = run;
    return run;
  }

  /** The first run of the region `run` belongs to, with the runs on the way pointed halfway closer. */
  find(run: number): number {
    let at = run;
    while (this.root[at] !== at) {
      const next = this.root[at]!;
      this.root[at] = this.root[next]!;
      at = next;
    }
    return at;
  }

  /** Joins the regions of two runs under the earlier of their labels. */
  join(a: number, b: number): void {
    const rootA = this.find(a);
    const rootB = this.find(b);
    if (rootA < rootB) this.root[rootB] = rootA;
    else this.root[rootA] = rootB;
  }

  private grow(): void {
    const length = Math.max(1024, 2 * this.row.length);
    const grown = <T extends Int32Array | Float64Array>(array: T, make: (n: number) => T) => {
      const into = make(length);
      into.set(array);
      return into;
    };
    this.row = grown(this.row, (n) => new Int32Array(n));
    this.start = grown(this.start, (n) => new Int32Array(n));
    this.end = grown(this.end, (n) => new Int32Array(n));
    this.sum = grown(this.sum, (n) => new Float64Array(n));
    this.root = grown(this.root, (n) => new Int32Array(n));
  }
}

const scratch = new Runs();

/** The runs of pixels above `threshold` in each row, labelled by region. */
function labelRuns(probability: Float32Array, width: number, height: number, threshold: number): Runs {
  const runs = scratch.clear();
  let above = { from: 0, to: 0 };
  for (let y = 0; y < height; y++) {
    const rowFrom = runs.count;
    let overlapping = above.from;
    const rowStart = y * width;
    const rowEnd = rowStart + width;
    for (let i = rowStart; i < rowEnd; ) {
      // Most of a map is no text: its pixels are passed over with one comparison each, four to a loop's test.
      while (i + 4 <= rowEnd && probability[i]! <= threshold && probability[i + 1]! <= threshold && probability[i + 2]! <= threshold && probability[i + 3]! <= threshold) i += 4;
      while (i < rowEnd && probability[i]! <= threshold) i++;
      if (i === rowEnd) break;
      const start = i - rowStart;
      let sum = 0;
      for (; i < rowEnd && probability[i]! > threshold; i++) sum += probability[i]!;
      const x = i - rowStart;
      const run = runs.add(y, start, x, sum);
      // The runs above end in order: those ending before this one starts touch no later run either.
      while (overlapping < above.to && runs.end[overlapping]! <= start) overlapping++;
      for (let other = overlapping; other < above.to && runs.start[other]! < x; other++) runs.join(run, other);
    }
    above = { from: rowFrom, to: runs.count };
  }
  return runs;
}

/**
 * The regions of the map above `threshold`, in the order of their first pixel (row by row). The
 * mean probability is the same whatever order a region's pixels are summed in: each is above the
 * threshold (at least 1/64, as any sensible threshold is), so a float a multiple of 2^-29, and a
 * sum of fewer than 2^24 of them, none above 1, is exact in a double.
 */
export function mapRegions(probability: Float32Array, width: number, height: number, threshold: number): MapRegion[] {
  const runs = labelRuns(probability, width, height, threshold);
  // Regions are numbered by their first runs, in order: a run's label comes before it, numbered already.
  const regionOf = new Int32Array(runs.count);
  let regions = 0;
  for (let run = 0; run < runs.count; run++) {
    const label = runs.find(run);
    regionOf[run] = label === run ? regions++ : regionOf[label]!;
  }
  const { from, runs: ofRegions } = runsByRegion(regionOf, regions);
  return Array.from({ length: regions }, (_, region) => regionAlong(runs, ofRegions.subarray(from[region], from[region + 1])));
}

/** The runs of each region in the order they were found (`from[r]` to `from[r + 1]` of `runs`), a counting sort by region. */
function runsByRegion(regionOf: Int32Array, regions: number): { from: Int32Array; runs: Int32Array } {
  const from = new Int32Array(regions + 1);
  for (const region of regionOf) from[region + 1]!++;
  for (let region = 0; region < regions; region++) from[region + 1]! += from[region]!;
  const next = from.slice(0, regions);
  const runs = new Int32Array(regionOf.length);
  for (let run = 0; run < regionOf.length; run++) runs[next[regionOf[run]!]!++] = run;
  return { from, runs };
}

/** Each row's leftmost and rightmost pixel edge (`left[k]`, `right[k]` of the region's k-th row), kept from region to region. */
let rowEnds = { left: new Int32Array(0), right: new Int32Array(0) };

/** A region from its runs, row by row and left to right (a region's rows follow on each other, as its runs are joined above and below). */
function regionAlong(runs: Runs, ofRegion: Int32Array): MapRegion {
  const firstRow = runs.row[ofRegion[0]!]!;
  const rows = runs.row[ofRegion[ofRegion.length - 1]!]! - firstRow + 1;
  if (rowEnds.left.length < rows) rowEnds = { left: new Int32Array(2 * rows), right: new Int32Array(2 * rows) };
  const { left, right } = rowEnds;
  let sum = 0;
  let count = 0;
  for (let k = 0; k < ofRegion.length; ) {
    const first = ofRegion[k]!;
    const y = runs.row[first]!;
    let last = first;
    for (; k < ofRegion.length && runs.row[ofRegion[k]!] === y; k++) {
      last = ofRegion[k]!;
      sum += runs.sum[last]!;
      count += runs.end[last]! - runs.start[last]!;
    }
    left[y - firstRow] = runs.start[first]!;
    right[y - firstRow] = runs.end[last]!;
  }
  const outline = [...sideOfHull(left, rows, firstRow, -1), ...sideOfHull(right, rows, firstRow, 1)];
  return { outline, meanProbability: sum / count };
}

/**
 * Of the corners of a region's rows on one side (`side` −1: their left edges, at x = `edges[k]`,
 * y = firstRow + k and the row's foot below; 1: their right), those that can lie on the region's
 * convex hull. A corner of the hull on the left is the leftmost of the region's corners at its y
 * (each row's right corners lie to the right of its left ones), and leftmost of them all as seen
 * across some slant (x + c·y the least): a corner of the left envelope, x as a convex function of
 * y, which a monotone chain down the rows finds. Corners left out lie inside the hull or on its
 * sides, so the hull of those kept is the hull of them all.
 */
function sideOfHull(edges: Int32Array, rows: number, firstRow: number, side: -1 | 1): Point[] {
  const chain: Point[] = [];
  for (let k = 0; k <= rows; k++) {
    // Each y between two rows is the foot of the upper row and the top of the lower.
    const x = k === 0 ? edges[0]! : k === rows ? edges[rows - 1]! : side < 0 ? Math.min(edges[k - 1]!, edges[k]!) : Math.max(edges[k - 1]!, edges[k]!);
    const corner = { x, y: firstRow + k };
    while (chain.length >= 2 && side * turn(chain[chain.length - 2]!, chain[chain.length - 1]!, corner) >= 0) chain.pop();
    chain.push(corner);
  }
  return chain;
}

/** Positive where b lies left of (at a lesser x than) the line from a to c, c below a; negative where right of it. */
const turn = (a: Point, b: Point, c: Point) => (b.y - a.y) * (c.x - a.x) - (b.x - a.x) * (c.y - a.y);
