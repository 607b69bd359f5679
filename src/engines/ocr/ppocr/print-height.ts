/**
 * How tall a page's lines of print are, estimated from its pixels before it is detected, so that
 * the detector is given the page once at the side its lines need (see plannedSide in detect.ts)
 * rather than first at the side limit and then again enlarged. The page is cut into narrow
 * upright strips; in each, the rows holding ink form bands, one a line of print as far as the
 * strip crosses it (narrow, so a two-column page or a table's cells keep their lines apart), and
 * the bands' typical height is the lines'.
 *
 * Trusted only where the page shows what the estimate assumes: light paper, many bands, and crisp
 * ink. A page blurred past reading has none (its strokes wash out to greys that hardly reach half
 * the paper's brightness); there the detector's own lines decide (see closerSide and closerLines),
 * which tell a blurred page from a blank one. A photo's grey paper, its shadows and desk are not
 * measured either.
 */
import { DARKEST_VIEW_WASM } from './darkest-view-wasm.js';
import type { RgbImage } from './image.js';
import { instantiate, reserve, vectorRegion, type WasmMemory } from './wasm.js';

/** The page is looked at shrunk to about this longest side (never enlarged), so that a band's rows mean the same at any resolution. */
const VIEW_SIDE = 640;
/** A cell is sampled at least this many times each way: a stroke is a few pixels wide at any resolution a page is read at. */
const STROKES_PER_CELL = 3;
/** Strips across the page's width. */
const STRIPS = 20;
/** A sample is ink when darker than this share of the paper's grey; bands are made of rows with ink. */
const INK = 0.6;
/** Of the samples darker than FAINT of the paper's grey, at least MIN_CRISP are darker than SOLID: print in focus. */
const FAINT = 0.85;
const SOLID = 0.5;
const MIN_CRISP = 0.25;
/** Paper at least this light (of 255): a scan or a rendered page, not a photo's grey sheet on a desk. */
const MIN_PAPER = 200;
/**
 * A page whose sampled paper is this much darker than MIN_PAPER is not measured at all: the
 * darkest view's paper (the median of each cell's darkest pixel) is no lighter than the page's
 * median pixel, and a sample of SAMPLES pixels misses that median by a few greys at most.
 */
const SAMPLE_MARGIN = 16;
const SAMPLES = 64;
/** Bands needed before their height means anything. */
const MIN_BANDS = 40;
/** Bands thinner than this (rows) are rules and specks; taller than this share of the page, pictures and vertical rules. */
const MIN_BAND = 3;
const MAX_BAND = 1 / 8;
/** The height is the mean of the middle half of the bands' heights: the median, less coarse. */
const MIDDLE = [0.25, 0.75] as const;

/** The typical height, in page pixels, of the page's lines of print; undefined where it cannot be trusted (see above). */
export function printLineHeight(image: RgbImage): number | undefined {
  // A photo's grey sheet is told at a glance, before the whole page is looked at.
  if (sampledPaper(image) < MIN_PAPER - SAMPLE_MARGIN) return undefined;
  const view = darkestView(image);
  const histogram = new Uint32Array(256);
  // Indexed: run once a page, a for-of over the cells made an iterator result of each.
  for (let i = 0; i < view.greys.length; i++) {
    const grey = view.greys[i]!;
    histogram[grey] = histogram[grey]! + 1;
  }
  // Most of a page is paper: its grey is the median cell's.
  const paper = percentile(histogram, view.greys.length, 0.5);
  if (paper < MIN_PAPER) return undefined;
  let faint = 0;
  let solid = 0;
  for (let grey = 0; grey < paper * FAINT; grey++) {
    faint += histogram[grey]!;
    if (grey < paper * SOLID) solid += histogram[grey]!;
  }
  if (solid < MIN_CRISP * faint) return undefined;
  const heights = bandHeights(view, paper * INK);
  if (heights.length < MIN_BANDS) return undefined;
  heights.sort((a, b) => a - b);
  const middle = heights.slice(Math.floor(MIDDLE[0] * heights.length), Math.ceil(MIDDLE[1] * heights.length));
  return (view.step * middle.reduce((sum, band) => sum + band, 0)) / middle.length;
}

/** The median green of a SAMPLES × SAMPLES grid of the page's pixels. */
function sampledPaper({ data, width, height }: RgbImage): number {
  const histogram = new Uint32Array(256);
  let count = 0;
  for (let row = 0; row < SAMPLES; row++) {
    const y = Math.floor(((row + 0.5) * height) / SAMPLES);
    for (let column = 0; column < SAMPLES; column++, count++) {
      const grey = data[(y * width + Math.floor(((column + 0.5) * width) / SAMPLES)) * 3 + 1]!;
      histogram[grey] = histogram[grey]! + 1;
    }
  }
  return percentile(histogram, count, 0.5);
}

/** The page's grey (its green, near enough) shrunk by `step` each way, each cell the darkest of its pixels: a thin stroke is not lost. */
export interface DarkestView {
  greys: Uint8Array;
  width: number;
  height: number;
  step: number;
}

/** darkest-view.wat's export: addresses and sizes in bytes, strides and samples in pixels. */
interface DarkestViewModule extends WasmMemory {
  darkestCells(pixels: number, rows: number, rowBytes: number, stride: number, samples: number, darkest: number, cells: number, cellCount: number): void;
}

const module = instantiate<DarkestViewModule>(DARKEST_VIEW_WASM);

/** Bytes past each region darkest-view.wat may read and write over (see darkest-view.wat). */
const REGION_SLACK = 16;

/**
 * The view a row of cells at a time (see darkest-view.wat): each cell row's sampled page rows are
 * copied into the module's memory, some tens of kilobytes that stay in the cache, and reduced
 * there. A cell takes its samples from where the one before stopped: as many as fit in `step`
 * pixels, and so more than `step` pixels where `stride` does not divide it.
 */
export function darkestView({ data, width, height }: RgbImage): DarkestView {
  const step = Math.max(1, Math.round(Math.max(width, height) / VIEW_SIDE));
  // Strokes grow with the page's resolution: a large page's cells are sampled every `stride` pixels each way.
  const stride = Math.max(1, Math.floor(step / STROKES_PER_CELL));
  const cells = { width: Math.ceil(width / step), height: Math.ceil(height / step) };
  const rowBytes = 3 * width;
  const samplesPerCell = Math.ceil(step / stride);
  const pixelsAt = 0;
  const darkestAt = pixelsAt + vectorRegion(samplesPerCell * rowBytes, REGION_SLACK);
  const greysAt = darkestAt + vectorRegion(rowBytes, REGION_SLACK);
  reserve(module, greysAt + cells.width * cells.height);
  const memory = new Uint8Array(module.memory.buffer);
  for (let cellRow = 0; cellRow < cells.height; cellRow++) {
    let rows = 0;
    for (let y = Math.ceil((cellRow * step) / stride) * stride; y < Math.min(height, (cellRow + 1) * step); y += stride, rows++) {
      memory.set(data.subarray(y * rowBytes, (y + 1) * rowBytes), pixelsAt + rows * rowBytes);
    }
    module.darkestCells(pixelsAt, rows, rowBytes, stride, samplesPerCell, darkestAt, greysAt + cellRow * cells.width, cells.width);
  }
  return { greys: memory.slice(greysAt, greysAt + cells.width * cells.height), ...cells, step };
}

/** The heights (in cells) of the bands of rows with ink (darker than `ink`) in each strip of the view. */
function bandHeights({ greys, width, height }: DarkestView, ink: number): number[] {
  const heights: number[] = [];
  const tallest = height * MAX_BAND;
  for (let strip = 0; strip < STRIPS; strip++) {
    const from = Math.floor((strip * width) / STRIPS);
    const to = Math.floor(((strip + 1) * width) / STRIPS);
    let band = 0;
    for (let y = 0; y <= height; y++) {
      let inked = false;
      for (let i = y * width + from, end = y * width + to; y < height && i < end && !inked; i++) inked = greys[i]! < ink;
      if (inked) band++;
      else {
        if (band >= MIN_BAND && band <= tallest) heights.push(band);
        band = 0;
      }
    }
  }
  return heights;
}

/** The grey below which `share` of the `count` samples of `histogram` lie. */
function percentile(histogram: Uint32Array, count: number, share: number): number {
  let below = 0;
  for (let grey = 0; grey < 256; grey++) {
    below += histogram[grey]!;
    if (below >= share * count) return grey;
  }
  return 255;
}
