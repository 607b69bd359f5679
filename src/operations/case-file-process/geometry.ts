/**
 * From the frame OCR boxes are in to the pixels of the page raster that is redacted. OCR read
 * the page turned `rotation` degrees clockwise and deskewed by tesseract about its centre
 * (OcrPage), both undone here, then scaled from the reading's size to the raster's.
 */
import type { OcrPage } from '../../engines/types.js';
import type { PageRaster } from '../../engines/documents/index.js';
import type { Box, Room } from './locate.js';

type Point = [number, number];
export type RasterFrame = Pick<PageRaster, 'width' | 'height' | 'readWidth' | 'readHeight'>;
export type ReadFrame = Pick<OcrPage, 'width' | 'height' | 'rotation' | 'deskewRadians'>;

/**
 * Undoes tesseract's deskew: its boxes are in the image rotated by `radians` about the centre
 * (clockwise positive, Leptonica's convention, with y pointing down).
 */
function undoDeskew([x, y]: Point, frame: ReadFrame): Point {
  if (!frame.deskewRadians) return [x, y];
  const cx = frame.width / 2;
  const cy = frame.height / 2;
  const cos = Math.cos(frame.deskewRadians);
  const sin = Math.sin(frame.deskewRadians);
  const dx = x - cx;
  const dy = y - cy;
  return [cx + dx * cos + dy * sin, cy - dx * sin + dy * cos];
}

/** A point of the image turned `rotation`° clockwise (size width × height) in the unturned image. */
function undoTurn([x, y]: Point, frame: ReadFrame): Point {
  switch (frame.rotation) {
    case 90:
      return [y, frame.width - x];
    case 180:
      return [frame.width - x, frame.height - y];
    case 270:
      return [frame.height - y, x];
    default:
      return [x, y];
  }
}

/** The box's corners carried to the raster; their bounding box, clamped to the raster. */
export function toRaster(box: Box, read: ReadFrame, raster: RasterFrame): Box {
  const scaleX = raster.width / raster.readWidth;
  const scaleY = raster.height / raster.readHeight;
  const corners: Point[] = [
    [box.x0, box.y0],
    [box.x1, box.y0],
    [box.x0, box.y1],
    [box.x1, box.y1],
  ].map((corner) => {
    const [x, y] = undoTurn(undoDeskew(corner as Point, read), read);
    return [x * scaleX, y * scaleY];
  });
  const xs = corners.map(([x]) => x);
  const ys = corners.map(([, y]) => y);
  return clamp({ x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) }, raster);
}

export function clamp(box: Box, size: { width: number; height: number }): Box {
  return {
    x0: Math.max(0, Math.min(size.width, box.x0)),
    y0: Math.max(0, Math.min(size.height, box.y0)),
    x1: Math.max(0, Math.min(size.width, box.x1)),
    y1: Math.max(0, Math.min(size.height, box.y1)),
  };
}

/**
 * Grown on every side: Chinese word boxes can be a dozen pixels off at 2000 px, and a stroke
 * just outside a box can still be read. Horizontal padding is wider (glyph edges, `:` joins).
 * Beside a neighbouring word on the line OCR's boxes are least sure at the datum's left, where
 * they leave out a left radical (the 讠 of 许) or a first digit: there the box also fills half
 * the blank to the word before (up to a line height). To the right it stops halfway to the next
 * word, so paint does not nick the next label and leave a fragment ("性别" read as "生别").
 */
export function padded(box: Box, room: Room = { x0: undefined, x1: undefined }): Box {
  const height = box.y1 - box.y0;
  const padX = Math.max(6, 0.15 * height);
  const padY = Math.max(4, 0.1 * height);
  const fillLeft = room.x0 === undefined ? box.x0 : Math.max((room.x0 + box.x0) / 2, box.x0 - height);
  const x0 = Math.min(box.x0 - padX, fillLeft);
  const x1 = room.x1 === undefined ? box.x1 + padX : Math.max(box.x1, Math.min(box.x1 + padX, (box.x1 + room.x1) / 2));
  return { x0, y0: box.y0 - padY, x1, y1: box.y1 + padY };
}
