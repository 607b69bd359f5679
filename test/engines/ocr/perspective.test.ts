import { describe, expect, it } from 'vitest';
import { project } from '../../../src/engines/ocr/homography.js';
import { estimatePerspective, flatView, turnedPerspective } from '../../../src/engines/ocr/perspective.js';
import { boundingBox, distance, quadOf, turnPoint, type Point, type Quad } from '../../../src/engines/ocr/plane.js';

const PAGE = { width: 1200, height: 1600 };

/** A form's lines: a title twice as high as the rest, then rows of three cells. */
function formLines(): Quad[] {
  const lines: Quad[] = [quadOf({ x0: 300, y0: 80, x1: 900, y1: 140 })];
  for (let row = 0; row < 24; row++) {
    const y0 = 200 + row * 56;
    for (const [x0, x1] of [
      [80, 420],
      [480, 760],
      [820, 1120],
    ] as const)
      lines.push(quadOf({ x0, y0, x1, y1: y0 + 30 }));
  }
  return lines;
}

/**
 * The page photographed with its plane turned `degrees` about its middle line, the `far` edge
 * away from a camera whose focal length is the page's longer side (as scripts/lib/redaction.ts
 * tilts a page), then placed with its corner at the origin.
 */
function tilted(far: 'top' | 'left', degrees: number): { place: (p: Point) => Point; size: { width: number; height: number } } {
  const focal = Math.max(PAGE.width, PAGE.height);
  const radians = (degrees * Math.PI) / 180;
  const seen = ({ x, y }: Point): Point => {
    const [u, v] = [x - PAGE.width / 2, y - PAGE.height / 2];
    const across = far === 'top' ? v : u;
    const depth = focal - across * Math.sin(radians);
    const moved = across * Math.cos(radians);
    const [sx, sy] = far === 'top' ? [u, moved] : [moved, v];
    return { x: (sx * focal) / depth, y: (sy * focal) / depth };
  };
  const corners = quadOf({ x0: 0, y0: 0, x1: PAGE.width, y1: PAGE.height }).map(seen);
  const box = boundingBox(corners);
  return {
    place: (p) => {
      const s = seen(p);
      return { x: s.x - box.x0, y: s.y - box.y0 };
    },
    size: { width: Math.ceil(box.x1 - box.x0), height: Math.ceil(box.y1 - box.y0) },
  };
}

const height = (quad: Quad) => (distance(quad[0], quad[3]) + distance(quad[1], quad[2])) / 2;
const degrees = (quad: Quad) => (Math.atan2(quad[1].y - quad[0].y, quad[1].x - quad[0].x) * 180) / Math.PI;

describe("a page's perspective, from its lines", () => {
  it('leaves a page seen square on as it lies', () => {
    expect(estimatePerspective(formLines(), PAGE)).toBeUndefined();
  });

  it('leaves a page tilted too slightly to matter (its scale varies by under a fifth)', () => {
    const { place, size } = tilted('left', 15);
    expect(estimatePerspective(formLines().map((quad) => quad.map(place) as Quad), size)).toBeUndefined();
  });

  it('leaves a page with too few lines to tell', () => {
    const { place, size } = tilted('top', 45);
    expect(estimatePerspective(formLines().slice(0, 4).map((quad) => quad.map(place) as Quad), size)).toBeUndefined();
  });

  it('tells a tilted form from five of its lines: its title and the cells of four rows, left and right', () => {
    const { place, size } = tilted('left', 45);
    const lines = formLines();
    expect(estimatePerspective([0, 1, 27, 49, 72].map((i) => lines[i]!.map(place) as Quad), size)).toBeDefined();
  });

  it.each([
    ['top', 30],
    ['top', 45],
    ['left', 40],
    ['left', 45],
  ] as const)('makes a page tilted %s away by %i° flat again: rows level and parallel, and as high far as near, at the scale of its nearest row', (far, tilt) => {
    const { place, size } = tilted(far, tilt);
    const seen = formLines().map((quad) => quad.map(place) as Quad);
    const rows = seen.slice(1);
    const heightsSeen = rows.map(height);
    // The tilt squeezes the far rows.
    expect(Math.max(...heightsSeen) / Math.min(...heightsSeen)).toBeGreaterThan(1.2);
    const perspective = estimatePerspective(seen, size);
    expect(perspective).toBeDefined();
    const view = flatView(perspective!, size, quadOf({ x0: 0, y0: 0, x1: size.width, y1: size.height }), Math.max(PAGE.width, PAGE.height), { scale: 1, maxSide: 10_000 })!;
    const flat = rows.map((quad) => quad.map((p) => project(view.toFlat, p)) as Quad);
    const heights = flat.map(height);
    expect(Math.max(...heights) / Math.min(...heights)).toBeLessThan(1.08);
    const angles = flat.map(degrees);
    expect(Math.max(...angles) - Math.min(...angles)).toBeLessThan(1.5);
    // Characters keep their proportions: a row's length over its height, as printed (340 by 30, 280 by 30).
    const aspect = (quad: Quad) => distance(quad[0], quad[1]) / height(quad);
    expect(aspect(flat[0]!)).toBeGreaterThan(0.85 * (340 / 30));
    expect(aspect(flat[0]!)).toBeLessThan(1.15 * (340 / 30));
    // Drawn at the scale of the nearest text: no row shrinks, the far ones grow.
    expect(Math.min(...heights)).toBeGreaterThan(0.95 * Math.max(...heightsSeen));
  });

  it('draws no flat view where the vanishing line comes near the text', () => {
    expect(flatView({ p: 0, q: 1 / 500 }, PAGE, quadOf({ x0: 0, y0: 0, x1: PAGE.width, y1: PAGE.height }), 1600, { scale: 1, maxSide: 4000 })).toBeUndefined();
  });

  it.each([90, 180, 270])('is the same vanishing line in the page turned a further %i°', (quarter) => {
    const perspective = { p: 2e-4, q: -5e-4 };
    const turned = turnedPerspective(perspective, quarter);
    const frame = { width: 1200, height: 1600 };
    const upright = quarter === 180 ? frame : { width: 1600, height: 1200 };
    for (const point of [{ x: 100, y: 200 }, { x: 1100, y: 1500 }, { x: 600, y: 50 }]) {
      const moved = turnPoint(point, quarter, frame, upright);
      const before = 1 + perspective.p * (point.x - 600) + perspective.q * (point.y - 800);
      const after = 1 + turned.p * (moved.x - upright.width / 2) + turned.q * (moved.y - upright.height / 2);
      expect(after).toBeCloseTo(before, 9);
    }
  });
});
