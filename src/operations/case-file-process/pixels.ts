/**
 * The pixels of a quad on a page: every pixel it touches, row by row, so two quads that meet
 * leave no hairline of page between them. Paint, the check that paint is solid in the produced
 * page, and the audit's filling all walk the same pixels, so what is checked is exactly what was
 * painted.
 */
import type { Quad, Size } from '../../engines/ocr/index.js';

/**
 * Calls `span(y, x0, x1)` for each row of the page the convex quad touches, with the first and
 * last column (inclusive) it touches there; nothing for a quad off the page.
 */
export function forEachSpan(quad: Quad, size: Size, span: (y: number, x0: number, x1: number) => void): void {
  const ys = quad.map((p) => p.y);
  const top = Math.max(0, Math.floor(Math.min(...ys)));
  const bottom = Math.min(size.height - 1, Math.ceil(Math.max(...ys)) - 1);
  for (let y = top; y <= bottom; y++) {
    let low = Infinity;
    let high = -Infinity;
    // The quad's extent within the row's band [y, y + 1]: each edge clipped to the band.
    for (let i = 0; i < 4; i++) {
      const a = quad[i]!;
      const b = quad[(i + 1) % 4]!;
      const [upper, lower] = a.y <= b.y ? [a, b] : [b, a];
      if (lower.y < y || upper.y > y + 1) continue;
      const ends = upper.y === lower.y ? [upper.x, lower.x] : [Math.max(y, upper.y), Math.min(y + 1, lower.y)].map((at) => upper.x + ((at - upper.y) * (lower.x - upper.x)) / (lower.y - upper.y));
      low = Math.min(low, ...ends);
      high = Math.max(high, ...ends);
    }
    if (low === Infinity) continue;
    const x0 = Math.max(0, Math.floor(low));
    const x1 = Math.min(size.width - 1, Math.ceil(high) - 1);
    if (x0 <= x1) span(y, x0, x1);
  }
}

/** Sets every pixel of the quads to `value` in an image of `channels` bytes per pixel. */
export function fillQuads(pixels: Uint8Array, size: Size & { channels: number }, quads: readonly Quad[], value: number): void {
  for (const quad of quads) {
    forEachSpan(quad, size, (y, x0, x1) => pixels.fill(value, (y * size.width + x0) * size.channels, (y * size.width + x1 + 1) * size.channels));
  }
}

/** The mean of a one-channel image over the quad's pixels, and how many there are. */
export function meanIn(grey: Uint8Array, size: Size, quad: Quad): { mean: number; pixels: number } {
  let sum = 0;
  let pixels = 0;
  forEachSpan(quad, size, (y, x0, x1) => {
    for (let i = y * size.width + x0; i <= y * size.width + x1; i++) sum += grey[i]!;
    pixels += x1 - x0 + 1;
  });
  return { mean: pixels ? sum / pixels : 0, pixels };
}

/**
 * Fills each quad of a one-channel page with the grey of the page around it: the median of the
 * pixels that no quad covers in a margin round it (paper, mostly; text is sparse). Paint turned
 * to pure white on a photo's grey paper stops tesseract reading the page at all (measured on the
 * blood-count photo: 217 words read, 3 with one white patch, none with its 14).
 */
export function fillWithSurroundings(grey: Uint8Array, size: Size, quads: readonly Quad[]): void {
  const covered = new Uint8Array(size.width * size.height);
  fillQuads(covered, { ...size, channels: 1 }, quads, 1);
  const levels = quads.map((quad) => surroundingLevel(grey, covered, size, quad));
  quads.forEach((quad, i) => fillQuads(grey, { ...size, channels: 1 }, [quad], levels[i]!));
}

/** The least margin looked at round a quad, in pixels; more for a tall one (half its shorter side). */
const MIN_SURROUNDING = 8;

function surroundingLevel(grey: Uint8Array, covered: Uint8Array, size: Size, quad: Quad): number {
  const shorter = Math.min(Math.hypot(quad[1].x - quad[0].x, quad[1].y - quad[0].y), Math.hypot(quad[3].x - quad[0].x, quad[3].y - quad[0].y));
  const margin = Math.max(MIN_SURROUNDING, shorter / 2);
  const xs = quad.map((p) => p.x);
  const ys = quad.map((p) => p.y);
  const x0 = Math.max(0, Math.floor(Math.min(...xs) - margin));
  const x1 = Math.min(size.width - 1, Math.ceil(Math.max(...xs) + margin));
  const y0 = Math.max(0, Math.floor(Math.min(...ys) - margin));
  const y1 = Math.min(size.height - 1, Math.ceil(Math.max(...ys) + margin));
  const histogram = new Uint32Array(256);
  let count = 0;
  for (let y = y0; y <= y1; y++) {
    for (let i = y * size.width + x0; i <= y * size.width + x1; i++) {
      if (covered[i]) continue;
      histogram[grey[i]!]!++;
      count++;
    }
  }
  if (!count) return 255;
  let seen = 0;
  for (let level = 0; level < 256; level++) {
    seen += histogram[level]!;
    if (seen * 2 >= count) return level;
  }
  return 255;
}
