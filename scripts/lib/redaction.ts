/**
 * Checks of de-identified pages that trust no OCR reader: where each planted string's glyphs are
 * (test/fixtures/deid/glyphs.json, the photos' `glyphs`), carried through any turn or
 * perspective tilt a test puts the page through, and whether the produced page is solid black
 * over them. And pages turned and tilted as a phone on a desk would take them.
 */
import sharp from 'sharp';
import { homography, insideQuad, project, turnPoint, type Homography, type Point, type Quad } from '../../src/engines/ocr/index.js';
import type { PageGlyphs } from './deid-fixtures.js';
import { pagesOf } from './independent-reader.js';

/** A page as an image, and where a point of the page it was made from lands on it. */
export interface DistortedPage {
  png: Buffer;
  width: number;
  height: number;
  place(point: Point): Point;
}

/** The grey of a desk under a photographed page. */
export const DESK = '#b9b3a7';

/** The page turned `degrees` clockwise onto a desk, about its centre (sharp's rotate). */
export async function turnedPage(image: Buffer, degrees: number): Promise<DistortedPage> {
  const upright = await sharp(image).rotate().png().toBuffer();
  const { width = 0, height = 0 } = await sharp(upright).metadata();
  const size = { width, height };
  const { data, info } = await sharp(upright).rotate(degrees, { background: DESK }).png().toBuffer({ resolveWithObject: true });
  const turned = { width: info.width, height: info.height };
  return { png: data, ...turned, place: (point) => turnPoint(point, degrees, size, turned) };
}

/**
 * The page photographed tilted: its plane turned `degrees` about its middle line (horizontal for
 * `top`/`bottom`, the far edge named; vertical for `left`/`right`), seen by a camera whose
 * focal length is the page's longer side, square on to where the page's centre is. The far edge
 * shrinks; the page is placed on a desk with a margin. Each pixel is one bilinear sample of the
 * page, sharp and aliased where the page shrinks; `averaging`, the mean of the page it sees, as
 * a camera's pixel gathers it: softer print, as a phone's photo has.
 */
export async function tiltedPage(image: Buffer, far: 'top' | 'bottom' | 'left' | 'right', degrees: number, { averaging = false } = {}): Promise<DistortedPage> {
  const { data: rgb, info } = await sharp(image).rotate().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const focal = Math.max(width, height);
  const radians = (degrees * Math.PI) / 180;
  const vertical = far === 'top' || far === 'bottom';
  const sign = far === 'top' || far === 'left' ? 1 : -1;
  // Each corner about the centre, its plane turned: the far side moves away from the camera.
  const seen = (p: Point): Point => {
    const [u, v] = [p.x - width / 2, p.y - height / 2];
    const across = vertical ? v : u;
    const depth = focal - sign * across * Math.sin(radians);
    const moved = across * Math.cos(radians);
    const [x, y] = vertical ? [u, moved] : [moved, v];
    return { x: (x * focal) / depth, y: (y * focal) / depth };
  };
  const corners: Quad = [
    { x: 0, y: 0 },
    { x: width, y: 0 },
    { x: width, y: height },
    { x: 0, y: height },
  ];
  const projected = corners.map(seen);
  const margin = Math.round(0.04 * Math.max(width, height));
  const left = Math.min(...projected.map((p) => p.x)) - margin;
  const top = Math.min(...projected.map((p) => p.y)) - margin;
  const outWidth = Math.ceil(Math.max(...projected.map((p) => p.x)) - left + margin);
  const outHeight = Math.ceil(Math.max(...projected.map((p) => p.y)) - top + margin);
  const onCanvas = projected.map((p) => ({ x: p.x - left, y: p.y - top })) as Quad;
  const forward = homography(corners, onCanvas);
  const backward = homography(onCanvas, corners);
  const desk = [0xb9, 0xb3, 0xa7] as const;
  const source = { rgb, width, height };
  const out = Buffer.alloc(outWidth * outHeight * 3);
  const colour = [0, 0, 0];
  for (let y = 0; y < outHeight; y++) {
    for (let x = 0; x < outWidth; x++) {
      const at = project(backward, { x: x + 0.5, y: y + 0.5 });
      const grid = averaging ? samplesPerSide(backward, at, x, y) : 1;
      colour.fill(0);
      for (let j = 0; j < grid; j++) {
        for (let i = 0; i < grid; i++) {
          const sample = grid === 1 ? at : project(backward, { x: x + (i + 0.5) / grid, y: y + (j + 0.5) / grid });
          addBilinear(colour, source, sample.x - 0.5, sample.y - 0.5, desk);
        }
      }
      const target = (y * outWidth + x) * 3;
      for (let c = 0; c < 3; c++) out[target + c] = Math.round(colour[c]! / (grid * grid));
    }
  }
  const png = await sharp(out, { raw: { width: outWidth, height: outHeight, channels: 3 } }).png().toBuffer();
  return { png, width: outWidth, height: outHeight, place: (point) => project(forward, point) };
}

/** The most samples a side of one camera pixel averages where the page is drawn shrunk. */
const MAX_SAMPLES_PER_SIDE = 4;

/** Samples a side for the camera pixel (x, y), whose centre `at` sees on the page: as many as page pixels its side spans. */
function samplesPerSide(backward: Homography, at: Point, x: number, y: number): number {
  const across = project(backward, { x: x + 1.5, y: y + 0.5 });
  const down = project(backward, { x: x + 0.5, y: y + 1.5 });
  const step = Math.max(Math.hypot(across.x - at.x, across.y - at.y), Math.hypot(down.x - at.x, down.y - at.y));
  return Math.min(MAX_SAMPLES_PER_SIDE, Math.ceil(step));
}

/** Adds the bilinear colour of an RGB image at (sx, sy) (pixel centres at whole numbers), or `outside`'s beyond its edge. */
function addBilinear(sum: number[], image: { rgb: Buffer; width: number; height: number }, sx: number, sy: number, outside: readonly number[]): void {
  const { rgb, width, height } = image;
  if (sx < 0 || sy < 0 || sx > width - 1 || sy > height - 1) {
    for (let c = 0; c < 3; c++) sum[c]! += outside[c]!;
    return;
  }
  const x0 = Math.floor(sx);
  const y0 = Math.floor(sy);
  const fx = sx - x0;
  const fy = sy - y0;
  const x1 = Math.min(width - 1, x0 + 1);
  const y1 = Math.min(height - 1, y0 + 1);
  for (let c = 0; c < 3; c++) {
    sum[c]! +=
      rgb[(y0 * width + x0) * 3 + c]! * (1 - fx) * (1 - fy) +
      rgb[(y0 * width + x1) * 3 + c]! * fx * (1 - fy) +
      rgb[(y1 * width + x0) * 3 + c]! * (1 - fx) * fy +
      rgb[(y1 * width + x1) * 3 + c]! * fx * fy;
  }
}

/** The glyphs of a page carried onto a distorted copy of it (drawn at the size the glyphs were found at). */
export function placed(page: PageGlyphs, distorted: DistortedPage, drawn: { width: number; height: number }): PageGlyphs {
  const [kx, ky] = [drawn.width / page.width, drawn.height / page.height];
  return {
    width: distorted.width,
    height: distorted.height,
    planted: page.planted.map(({ text, quad }) => ({ text, quad: quad.map((p) => distorted.place({ x: p.x * kx, y: p.y * ky })) as Quad })),
  };
}

/** Grey under which a pixel counts as paint (JPEG rings a little inside paint's edges). */
const PAINT = 80;
/**
 * Share of a string's glyph pixels that must be paint for it to be covered: one character of the
 * longest planted string (18 digits) is more than 5% of it, and a hairline seam between two
 * turned quads of paint is less.
 */
export const COVERED = 0.95;

/** Share of the pixels inside a quad (their centres) that are paint, in a greyscale page. */
function paintedShare(grey: Uint8Array, width: number, height: number, quad: Quad): number {
  const xs = quad.map((p) => p.x);
  const ys = quad.map((p) => p.y);
  let inside = 0;
  let painted = 0;
  for (let y = Math.max(0, Math.floor(Math.min(...ys))); y < Math.min(height, Math.ceil(Math.max(...ys))); y++) {
    for (let x = Math.max(0, Math.floor(Math.min(...xs))); x < Math.min(width, Math.ceil(Math.max(...xs))); x++) {
      if (!insideQuad({ x: x + 0.5, y: y + 0.5 }, quad)) continue;
      inside++;
      if (grey[y * width + x]! < PAINT) painted++;
    }
  }
  return inside ? painted / inside : 0;
}

export interface Coverage {
  text: string;
  /** Share of its glyphs' pixels under paint. */
  painted: number;
}

/**
 * How much of each planted string's glyphs lies under paint on each page of a produced file (an
 * image, every page of a TIFF, or a PDF drawn at 200 dpi); `pages` as sent (the produced pages
 * keep their size), each page's glyphs scaled to the page as drawn.
 */
export async function coverage(produced: Buffer, pages: readonly PageGlyphs[]): Promise<Coverage[][]> {
  const drawn = await pagesOf(produced);
  return Promise.all(
    drawn.map(async (png, index) => {
      const page = pages[index];
      if (!page) return [];
      const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
      const [kx, ky] = [info.width / page.width, info.height / page.height];
      return page.planted.map(({ text, quad }) => ({
        text,
        painted: paintedShare(data, info.width, info.height, quad.map((p) => ({ x: p.x * kx, y: p.y * ky })) as Quad),
      }));
    }),
  );
}

/** The strings not covered, by page: `page n: text (share painted)`. */
export function uncovered(pages: readonly Coverage[][]): string[] {
  return pages.flatMap((page, n) => page.filter((item) => item.painted < COVERED).map((item) => `page ${n + 1}: ${item.text} (${Math.round(item.painted * 100)}% painted)`));
}


/**
 * The page lit unevenly, as by a lamp beside the desk: brightness falls from full on one side to
 * `darkest` of it on the other, across the direction `degrees` clockwise from the x axis.
 */
export async function shadedPage(page: DistortedPage, degrees: number, darkest: number): Promise<DistortedPage> {
  const { data, info } = await sharp(page.png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const [cos, sin] = [Math.cos((degrees * Math.PI) / 180), Math.sin((degrees * Math.PI) / 180)];
  const reach = (Math.abs(cos) * info.width + Math.abs(sin) * info.height) / 2;
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const along = ((x - info.width / 2) * cos + (y - info.height / 2) * sin) / reach;
      const gain = 1 - ((1 - darkest) * (along + 1)) / 2;
      const at = (y * info.width + x) * info.channels;
      for (let c = 0; c < info.channels; c++) data[at + c] = Math.round(data[at + c]! * gain);
    }
  }
  const png = await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).png().toBuffer();
  return { ...page, png };
}

/** A distorted page distorted again: `then` applied to its image, points carried through both. */
export async function thenDistorted(page: DistortedPage, then: (png: Buffer) => Promise<DistortedPage>): Promise<DistortedPage> {
  const second = await then(page.png);
  return { ...second, place: (point) => second.place(page.place(point)) };
}
