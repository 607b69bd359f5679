/**
 * From the frame OCR boxes are in to the pixels of the page raster that is redacted. OCR read
 * the page turned `rotation` degrees clockwise about its centre (any angle: a photo is read
 * straightened) and deskewed by tesseract about the turned page's centre (OcrPage); both are
 * undone here, then the point is scaled from the size of the image read to the raster's. A box
 * read on a page turned by other than a quarter turn lands on the raster as a turned rectangle,
 * so what is painted and audited on the raster is a quad, never the box around it (which would
 * cover the lines above and below a tilted line).
 */
import type { PageRaster } from '../../documents/index.js';
import { distance, homography, project, quadOf, undoDeskew, unturnPoint, type Homography, type Point, type Quad } from '../../engines/ocr/index.js';
import type { Box } from '../../engines/types.js';
import type { OcrPage } from '../../engines/types.js';

/**
 * The blank around a datum (OCR frame): on its line, where the word before it ends and the word
 * after it begins, undefined on a side where there is no such word or the datum is glued into
 * one; above and below, where the nearest word of another line within its paint's reach ends
 * and begins, undefined where there is none or the page was not read as printed (readAsPrinted in locate.ts).
 */
export interface Room {
  x0: number | undefined;
  x1: number | undefined;
  y0?: number | undefined;
  y1?: number | undefined;
}

export type RasterFrame = Pick<PageRaster, 'width' | 'height' | 'readWidth' | 'readHeight'>;
export type ReadFrame = Pick<OcrPage, 'width' | 'height' | 'rotation' | 'deskewRadians'>;

/** A point of the reading on the raster. */
export function pointOnRaster(point: Point, read: ReadFrame, raster: RasterFrame): Point {
  const source = { width: raster.readWidth, height: raster.readHeight };
  const { x, y } = unturnPoint(undoDeskew(point, read.deskewRadians, read), read.rotation, read, source);
  return { x: (x * raster.width) / raster.readWidth, y: (y * raster.height) / raster.readHeight };
}

/** The box's corners carried to the raster, in order: the reading's top-left corner first. */
export function toRaster(box: Box, read: ReadFrame, raster: RasterFrame): Quad {
  return quadToRaster(quadOf(box), read, raster);
}

export function quadToRaster(quad: Quad, read: ReadFrame, raster: RasterFrame): Quad {
  return quad.map((corner) => pointOnRaster(corner, read, raster)) as Quad;
}

/**
 * A datum's part of its line where the page was not read as printed (a photo read straightened,
 * or in its flat view), in the line's own frame: x along the line, y across it, its part the box
 * [0, length] × [0, thickness]. A page photographed at a slant has rows that converge as it lies;
 * they come back into the straightened page running up to 20° off level at 45° of tilt, and the
 * box round a datum there stands as tall as the datum rises: its paint covered the rows above and
 * below (a report's title and date beside its number). In this frame the datum is padded as on a
 * level line, and painted turned with it.
 */
export interface LineFrame {
  /** From the frame to the reading. */
  toReading: Homography;
  box: Box;
}

/** How far outside its frame's part a character's corner may lie (rounding at the page's edge). */
const FRAME_SLACK = 1;

/**
 * The frame of a run of characters (their quads as the reader placed them, in order), from the
 * first one's leading side to the last one's trailing side; undefined for none, and where a
 * character lies outside that part: a datum whose words the reader read on separate lines (cells
 * of one row at different heights) is no one line, and keeps the box round it.
 */
export function lineFrameOf(quads: readonly Quad[]): LineFrame | undefined {
  const [first, last] = [quads[0], quads.at(-1)];
  if (!first || !last) return undefined;
  const part: Quad = [first[0], last[1], last[2], first[3]];
  const length = (distance(part[0], part[1]) + distance(part[3], part[2])) / 2;
  const thickness = (distance(part[0], part[3]) + distance(part[1], part[2])) / 2;
  const box = { x0: 0, y0: 0, x1: length, y1: thickness };
  const intoFrame = homography(part, quadOf(box));
  const inPart = ({ x, y }: Point) => x >= -FRAME_SLACK && x <= length + FRAME_SLACK && y >= -FRAME_SLACK && y <= thickness + FRAME_SLACK;
  if (!quads.every((quad) => quad.every((corner) => inPart(project(intoFrame, corner))))) return undefined;
  return { toReading: homography(quadOf(box), part), box };
}

/** A box of the frame, as the quad it stands in in the reading. */
export function outOfFrame({ toReading }: LineFrame, box: Box): Quad {
  return quadOf(box).map((p) => project(toReading, p)) as Quad;
}

/**
 * The blank beside a datum on its line, in its frame: where a word before and after it ends and
 * begins (x in the reading), taken along the line's middle. Above and below it nothing bounds the
 * paint, as on any page not read as printed.
 */
export function roomAlong(frame: LineFrame, room: Room): Room {
  const middle = (frame.box.y0 + frame.box.y1) / 2;
  const [start, end] = [project(frame.toReading, { x: frame.box.x0, y: middle }), project(frame.toReading, { x: frame.box.x1, y: middle })];
  const along = (x: number | undefined) =>
    x === undefined || Math.abs(end.x - start.x) < 1 ? undefined : frame.box.x0 + ((x - start.x) / (end.x - start.x)) * (frame.box.x1 - frame.box.x0);
  return { x0: along(room.x0), x1: along(room.x1) };
}

/** Horizontal padding of a box estimated from its word's width, in line heights: proportional Latin print puts a name's start a quarter of its height or more off the estimate. */
const ESTIMATED_PAD = 0.5;
/** Vertical padding of such a box: a text layer's line box ends at the font's baseline area, above the descenders (the tail of "Zhang"'s g). */
const ESTIMATED_PAD_Y = 0.3;
/** Vertical padding every box keeps, in line heights (and 4 px at least), whatever stands above and below it. */
const LEAST_PAD_Y = 0.1;

/**
 * Grown on every side: Chinese word boxes can be a dozen pixels off at 2000 px, and a stroke
 * just outside a box can still be read. Horizontal padding is wider (glyph edges, `:` joins).
 * Beside a neighbouring word on the line OCR's boxes are least sure at the datum's left, where
 * they leave out a left radical (the 讠 of 许) or a first digit: there the box also fills half
 * the blank to the word before (up to a line height). To the right it stops halfway to the next
 * word, so paint does not nick the next label and leave a fragment ("性别" read as "生别"). A box
 * `estimated` from its word's width (a PDF's text layer gives words, not characters) is padded by
 * half a line height on both sides, up to the next word (in proportional print the estimate
 * missed where "Linda" begins by 13 px at 200 dpi), and by 0.3 of it above and below. A `code`
 * (an ID number) is padded as much: on a photo the detector may end a faint number's line before
 * its last digit, or slant it a degree off its print. That wider padding above and below stops
 * where a word of the line above or below begins (`room.y0`, `room.y1`, given where boxes hold
 * their glyphs): on a page whose lines are set close it would cover the top or foot of the next
 * line's words (a diagnosis under an ID number). The least padding stays whatever stands there.
 */
export function padded(box: Box, room: Room = { x0: undefined, x1: undefined }, estimated = false, code = false): Box {
  const height = box.y1 - box.y0;
  const padX = Math.max(6, (estimated || code ? ESTIMATED_PAD : 0.15) * height);
  const leastPadY = Math.max(4, LEAST_PAD_Y * height);
  const padY = estimated || code ? Math.max(leastPadY, ESTIMATED_PAD_Y * height) : leastPadY;
  const fillLeft = room.x0 === undefined ? box.x0 : Math.max((room.x0 + box.x0) / 2, box.x0 - height);
  const x0 = Math.min(box.x0 - padX, fillLeft);
  const rightLimit = room.x1 === undefined ? Infinity : estimated ? room.x1 : (box.x1 + room.x1) / 2;
  const x1 = Math.max(box.x1, Math.min(box.x1 + padX, rightLimit));
  const y0 = Math.min(box.y0 - leastPadY, Math.max(box.y0 - padY, room.y0 ?? -Infinity));
  const y1 = Math.max(box.y1 + leastPadY, Math.min(box.y1 + padY, room.y1 ?? Infinity));
  return { x0, y0, x1, y1 };
}
