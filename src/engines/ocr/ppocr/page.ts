/**
 * Read lines to an OcrPage in the upright frame: every point of a line (its characters' corners
 * along the crop) is mapped back through the crop's homography onto the page, then turned with
 * the page. Lines whose centres share a row become one text line (cells of a table row read
 * together, joined by two spaces, as a printed form reads), a photo taken at a slant seen flat;
 * words are the whitespace-separated runs of a line, each with one box per character.
 */
import type { Box, OcrPage, OcrWord, PagePerspective } from '../../types.js';
import { boundingBox, distance, normalDegrees, turnPoint, type Point, type Quad, type Size } from '../plane.js';
import { homography, project } from '../homography.js';
import { seenFlat } from '../perspective.js';
import { rectQuad } from './geometry.js';
import { RECOGNISER_HEIGHT, type LineReading } from './recognize.js';

/** The page the lines were read from, and how it is turned to stand straight and upright. */
export interface ReadFrame {
  /** The page as sent, without the margin it was read with. */
  source: Size;
  /** White added all round the page before it was read. */
  margin: number;
  /** Degrees clockwise the page is turned (straightened, then a quarter turn). */
  rotation: number;
  /** The size of the turned page: the frame of the OcrPage. */
  upright: Size;
  /** The perspective of the turned page (about its centre), when it was photographed at a slant. */
  perspective?: PagePerspective;
}

interface PlacedChar {
  char: string;
  box: Box;
  quad: Quad;
  probability: number;
}

interface PlacedLine {
  chars: PlacedChar[];
  box: Box;
  /** Where the line starts and ends, along its middle, where its first and last characters' centres are, and how high it is, as the page is seen flat (see rows). */
  start: Point;
  end: Point;
  firstChar: Point;
  lastChar: Point;
  height: number;
}

/**
 * A line read with a lower mean character probability is dropped, as PaddleOCR drops it: what the
 * recogniser makes of speckle and stamps is junk. (De-identification audits with a second reader.)
 */
const DROP_PROBABILITY = 0.5;
/** A row takes a line whose vertical centre is within this share of the row's line height. */
const SAME_ROW = 0.5;
const CELL_SEPARATOR = '  ';

/**
 * Each character's box in the upright page: its run of time steps, widened halfway to its
 * neighbours; the first and last reach the ends of the line's crop (CTC fires inside a glyph, not
 * at its edge, and the crop holds the whole line with a margin).
 */
function placeLine(reading: LineReading, turn: (p: Point) => Point, flat: (p: Point) => Point): PlacedLine | undefined {
  const { chars, pixelsPerStep, cropWidth } = reading;
  if (chars.length === 0) return undefined;
  const toPage = homography(rectQuad(cropWidth, RECOGNISER_HEIGHT), reading.quad);
  const at = (x: number, y: number) => turn(project(toPage, { x: Math.min(cropWidth, Math.max(0, x)), y }));
  const placed = chars.map((c, i) => {
    const previous = chars[i - 1];
    const next = chars[i + 1];
    const x0 = previous ? ((previous.last + c.first + 1) / 2) * pixelsPerStep : 0;
    const x1 = next ? ((c.last + next.first + 1) / 2) * pixelsPerStep : cropWidth;
    const corners: Quad = [at(x0, 0), at(x1, 0), at(x1, RECOGNISER_HEIGHT), at(x0, RECOGNISER_HEIGHT)];
    return { char: c.char, box: roundBox(boundingBox(corners)), quad: corners, probability: c.probability };
  });
  const outline = [at(0, 0), at(cropWidth, 0), at(cropWidth, RECOGNISER_HEIGHT), at(0, RECOGNISER_HEIGHT)];
  const middle = RECOGNISER_HEIGHT / 2;
  const centreOf = (box: Box) => flat({ x: (box.x0 + box.x1) / 2, y: (box.y0 + box.y1) / 2 });
  return {
    chars: placed,
    box: roundBox(boundingBox(outline)),
    start: flat(at(0, middle)),
    end: flat(at(cropWidth, middle)),
    firstChar: centreOf(placed[0]!.box),
    lastChar: centreOf(placed[placed.length - 1]!.box),
    height: distance(flat(at(0, 0)), flat(at(0, RECOGNISER_HEIGHT))),
  };
}

const meanProbability = ({ chars }: LineReading) => (chars.length ? chars.reduce((sum, c) => sum + c.probability, 0) / chars.length : 0);

const roundBox = (box: Box): Box => ({ x0: Math.floor(box.x0), y0: Math.floor(box.y0), x1: Math.ceil(box.x1), y1: Math.ceil(box.y1) });

/**
 * Lines grouped into rows, top to bottom, each row's lines left to right. A photo's rows slope,
 * so positions are taken along and across the page's median line direction, not x and y, and a
 * photo taken at a slant is seen flat first: its rows converge, and a table's header cell on the
 * far side stood level with the next row's cell on the near side.
 */
function rows(lines: PlacedLine[]): PlacedLine[][] {
  const angle = medianAngle(lines);
  const along = (p: Point) => p.x * Math.cos(angle) + p.y * Math.sin(angle);
  const across = (p: Point) => -p.x * Math.sin(angle) + p.y * Math.cos(angle);
  const placed = lines.map((line) => {
    const mid = { x: (line.start.x + line.end.x) / 2, y: (line.start.y + line.end.y) / 2 };
    // Its extent runs between its first and last characters' centres: the margins around a
    // line reach into its neighbours'.
    const ends = [along(line.firstChar), along(line.lastChar)];
    return { line, v: across(mid), u0: Math.min(...ends), u1: Math.max(...ends) };
  });
  const result: Array<typeof placed> = [];
  for (const item of placed.sort((a, b) => a.v - b.v)) {
    const row = result[result.length - 1];
    const rowV = row ? row.reduce((sum, other) => sum + other.v, 0) / row.length : 0;
    const height = Math.max(item.line.height, ...(row ?? []).map((other) => other.line.height));
    const overlaps = row?.some((other) => Math.min(item.u1, other.u1) > Math.max(item.u0, other.u0));
    if (row && Math.abs(item.v - rowV) <= SAME_ROW * height && !overlaps) row.push(item);
    else result.push([item]);
  }
  return result.map((row) => row.sort((a, b) => a.u0 - b.u0).map((item) => item.line));
}

/** The median direction of the lines that hold a few characters (single characters point anywhere). */
function medianAngle(lines: readonly PlacedLine[]): number {
  const angles = lines
    .filter((line) => line.chars.length >= 3)
    .map((line) => Math.atan2(line.end.y - line.start.y, line.end.x - line.start.x))
    .sort((a, b) => a - b);
  return angles.length ? angles[Math.floor(angles.length / 2)]! : 0;
}

/** The words of a line: runs of characters between spaces. */
function wordsOf(line: PlacedLine, lineIndex: number): OcrWord[] {
  const words: OcrWord[] = [];
  let current: PlacedChar[] = [];
  const flush = () => {
    if (current.length === 0) return;
    const chars = current.map((c) => c.box);
    words.push({
      text: current.map((c) => c.char).join(''),
      confidence: Math.round((100 * current.reduce((sum, c) => sum + c.probability, 0)) / current.length),
      box: { x0: Math.min(...chars.map((b) => b.x0)), y0: Math.min(...chars.map((b) => b.y0)), x1: Math.max(...chars.map((b) => b.x1)), y1: Math.max(...chars.map((b) => b.y1)) },
      line: lineIndex,
      chars,
      charQuads: current.map((c) => c.quad),
    });
    current = [];
  };
  for (const c of line.chars) {
    if (/\s/.test(c.char)) flush();
    else current.push(c);
  }
  flush();
  return words;
}

/** The page read from its lines (read in the page as sent), in the frame of the page turned straight and upright. */
export function assemblePage(readings: LineReading[], frame: ReadFrame): OcrPage {
  const { source, margin, rotation, upright } = frame;
  const turn = (p: Point) =>
    turnPoint({ x: Math.min(source.width, Math.max(0, p.x - margin)), y: Math.min(source.height, Math.max(0, p.y - margin)) }, rotation, source, upright);
  const flat = frame.perspective ? seenFlat(frame.perspective, upright) : (p: Point) => p;
  const legible = readings.filter((reading) => meanProbability(reading) >= DROP_PROBABILITY);
  const illegible = readings.filter((reading) => reading.chars.length > 0 && meanProbability(reading) < DROP_PROBABILITY);
  const placed = legible
    .map((reading) => placeLine(reading, turn, flat))
    .filter((line): line is PlacedLine => line !== undefined);
  const texts: string[] = [];
  const words: OcrWord[] = [];
  for (const row of rows(placed)) {
    const lineWords = row.flatMap((line) => wordsOf(line, texts.length));
    if (lineWords.length === 0) continue;
    words.push(...lineWords);
    texts.push(row.map((line) => line.chars.map((c) => c.char).join('').trim()).join(CELL_SEPARATOR));
  }
  // Lines dropped as illegible count against the page: a blurred page whose every line was
  // dropped is not a blank one.
  const weighted = [
    ...words.map((word) => ({ confidence: word.confidence, chars: [...word.text].length })),
    ...illegible.map((reading) => ({ confidence: 100 * meanProbability(reading), chars: reading.chars.length })),
  ];
  const charCount = weighted.reduce((sum, item) => sum + item.chars, 0);
  const confidence = charCount === 0 ? 0 : weighted.reduce((sum, item) => sum + item.confidence * item.chars, 0) / charCount;
  return {
    text: texts.join('\n'),
    words,
    width: upright.width,
    height: upright.height,
    confidence: Math.round(confidence),
    illegibleLines: illegible.length,
    rotation: normalDegrees(rotation),
    deskewRadians: 0,
  };
}
