/**
 * Where on a page the personal data is, as boxes in the page's OCR frame:
 * - every detector span, mapped from characters to the parts of the word boxes they cover;
 * - label-value layout (personal-data/layout.ts) for a personal label whose value is not on its
 *   line: when the label ends its line, the first group of words to its right on the same row
 *   and the blank gap to them (a signature OCR cannot read); before the next word of its line,
 *   the blank up to it (a value too faint to read); and in tables, the cell below the label.
 */
import type { Box, OcrPage } from '../../engines/types.js';
import {
  cellBelow, endsLine, findLineData, firstWordRightOf, heightOf, labelsWithValues, pageLines, RIGHT_REACH_HEIGHTS, spanBox, spanCharQuads, union, UNREAD_VALUE_RULE, wordsRightOf,
  type OpenLabel, type PageLine, type PersonalKind,
} from '../personal-data/index.js';
import { isQuarterTurn, type Quad } from '../../engines/ocr/index.js';
import { GatewayError } from '../../errors.js';
import { lineFrameOf, type LineFrame, type Room } from './geometry.js';

export interface PersonalRegion {
  box: Box;
  kind: PersonalKind;
  /**
   * `text`: a detector read the datum; `cell`: words read in the cell below an open label (a
   * table's value, whose label heads its column); `layout`: where a label's unread value must be.
   */
  evidence: 'text' | 'cell' | 'layout';
  /** The blank around a datum read in a line, which its paint may fill. */
  room?: Room;
  /** Its box is a share of its word's by character widths (a reader that does not place characters: a PDF's text layer, tesseract). */
  estimated?: boolean;
  /** The datum as read (a cell's words); empty for layout. */
  text: string;
  /** A cell's label, which heads its column. */
  label?: Box;
  /** A datum read on a line that runs aslant on a page not read as printed: its characters in their line's frame, where it is painted. */
  along?: LineFrame;
}

/** Text as the page was read, where it was. */
export interface ReadText {
  box: Box;
  text: string;
}

/** A blank after an open label this many line heights wide is a field whose value was not read. */
const MIN_BLANK_FIELD_HEIGHTS = 1;

/** Whether a word of characters [start, end) of a line has no characters placed by its reader. */
function isEstimated(page: OcrPage, line: PageLine, start: number, end: number): boolean {
  for (let char = start; char < end; char++) {
    const position = line.wordOf[char]!;
    if (position >= 0 && !page.words[line.words[position]!]!.chars) return true;
  }
  return false;
}

const PUNCTUATION = /^\p{P}$/u;

/**
 * A datum followed in its word by nothing but punctuation ("7788," read as one word) takes it
 * too: within a word a character's place is estimated, and a comma's width is a guess.
 */
function throughTrailingPunctuation(line: PageLine, end: number): number {
  const word = line.wordOf[end - 1];
  let stop = end;
  while (stop < line.text.length && line.wordOf[stop] === word && PUNCTUATION.test(line.text[stop]!)) stop++;
  return stop < line.text.length && line.wordOf[stop] === word ? end : stop;
}

/** The blank around characters [start, end) of a line: up to the words before and after them, where they begin and end words. */
function roomAround(line: PageLine, start: number, end: number): Room {
  let first = start;
  let last = end - 1;
  while (first < last && line.wordOf[first]! < 0) first++;
  while (last > first && line.wordOf[last]! < 0) last--;
  const firstWord = line.wordOf[first]!;
  const lastWord = line.wordOf[last]!;
  const startsWord = line.offsetInWord[first] === 0;
  const endsWord = line.wordOf[last + 1] !== lastWord;
  return {
    x0: startsWord && firstWord > 0 ? line.boxes[firstWord - 1]!.x1 : undefined,
    x1: endsWord && lastWord < line.words.length - 1 ? line.boxes[lastWord + 1]!.x0 : undefined,
  };
}

/** How far sideways a datum's paint may reach, in line heights: its padding, and the blank it fills to the left (geometry.ts). */
const SIDE_REACH_HEIGHTS = 1;

/**
 * The blank above and below a box up to the nearest words of other lines that stand over or
 * under it: a word whose middle is above the box's top bounds it above, one whose middle is
 * below its bottom bounds it below (a word of the same row, read as another line, does neither).
 */
function blankAboveAndBelow(lines: readonly PageLine[], own: PageLine, box: Box): Pick<Room, 'y0' | 'y1'> {
  const reach = SIDE_REACH_HEIGHTS * heightOf(box);
  let y0: number | undefined;
  let y1: number | undefined;
  for (const word of lines.flatMap((line) => (line === own ? [] : line.boxes))) {
    if (word.x1 <= box.x0 - reach || word.x0 >= box.x1 + reach) continue;
    const middle = (word.y0 + word.y1) / 2;
    if (middle < box.y0) y0 = Math.max(y0 ?? -Infinity, word.y1);
    else if (middle > box.y1) y1 = Math.min(y1 ?? Infinity, word.y0);
  }
  return { y0, y1 };
}

/**
 * Whether the page was read as it was printed, upright or a quarter turn from it: there its words'
 * boxes hold their glyphs. A photo read at a slant or in a flat view has its boxes carried
 * through a turn or a perspective, a few pixels off its print: a neighbour's box there is no
 * bound for a datum's paint.
 */
const readAsPrinted = (page: OcrPage) => isQuarterTurn(page.rotation) && !page.perspective;

/** The frame of characters of a line (their quads), where the page was not read as printed: its boxes there stand aslant (see LineFrame). */
export function lineFrame(page: OcrPage, quads: readonly Quad[] | undefined): LineFrame | undefined {
  return readAsPrinted(page) || !quads ? undefined : lineFrameOf(quads);
}

export function personalRegions(page: OcrPage): PersonalRegion[] {
  const regions: PersonalRegion[] = [];
  const lines = pageLines(page);
  const boundingLines = readAsPrinted(page) ? lines : [];
  for (const line of lines) {
    const findings = findLineData(line);
    for (const detection of findings.detections) {
      const end = throughTrailingPunctuation(line, detection.end);
      const box = spanBox(page, line, detection.start, end);
      // Every datum read is painted: one that cannot be placed withholds the page.
      if (!box) throw new GatewayError('deidentification_failed', 'personal data was read that cannot be placed on the page; the file is withheld');
      const evidence = detection.rule === UNREAD_VALUE_RULE ? 'layout' : 'text';
      const text = line.text.slice(detection.start, detection.end);
      const room = { ...roomAround(line, detection.start, end), ...blankAboveAndBelow(boundingLines, line, box) };
      const along = lineFrame(page, spanCharQuads(page, line, detection.start, end));
      regions.push({
        box,
        kind: detection.kind,
        evidence,
        room,
        text,
        ...(isEstimated(page, line, detection.start, end) ? { estimated: true } : {}),
        ...(along ? { along } : {}),
      });
      if (isPartOfCode(detection.kind, text)) regions.push(...restOfField(box, room, detection.kind));
    }
    for (const label of findings.openLabels) regions.push(...labelValueRegions(page, line, label));
  }
  return regions;
}

/** Kinds whose value is one code or number: a field holds nothing else. */
const CODE_KINDS: ReadonlySet<PersonalKind> = new Set(['hospital_id', 'resident_id', 'insurance_number', 'passport', 'identifier']);
/** Characters a code is read with at least, whole: fewer are part of one whose rest was not read. */
const MIN_WHOLE_CODE = 6;

const isPartOfCode = (kind: PersonalKind, text: string) => CODE_KINDS.has(kind) && text.replace(/\s/gu, '').length < MIN_WHOLE_CODE;

/** Whether a datum of this kind is one code or number. */
export const isCode = (kind: PersonalKind) => CODE_KINDS.has(kind);

/**
 * The rest of a code's field when only part of it was read ("门诊号9" of 90051065): the blank
 * after it up to the next word, when it is a field wide, or a blank field's width at the line's end.
 */
function restOfField(box: Box, room: Room, kind: PersonalKind): PersonalRegion[] {
  const height = heightOf(box);
  const x1 = room.x1 ?? box.x1 + RIGHT_REACH_HEIGHTS * height;
  if (x1 - box.x1 < MIN_BLANK_FIELD_HEIGHTS * height) return [];
  // On the datum's line: the lines above and below it bound this paint as they bound the datum's.
  const besideLines: Room = { x0: undefined, x1: undefined, y0: room.y0, y1: room.y1 };
  return [{ box: { x0: box.x1, y0: box.y0, x1, y1: box.y1 }, kind, evidence: 'layout', room: besideLines, text: '' }];
}

/** Runs of characters of one word that no detection took, as [start, end) of the line. */
function runsBesideData(line: PageLine, detections: ReadonlyArray<{ start: number; end: number }>): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (let char = 0; char < line.text.length; char++) {
    if (line.wordOf[char]! < 0 || detections.some((detection) => char >= detection.start && char < detection.end)) continue;
    const last = runs.at(-1);
    if (last && last[1] === char && line.wordOf[char - 1] === line.wordOf[char]) last[1] = char + 1;
    else runs.push([char, char + 1]);
  }
  return runs;
}

/** What the page was read with besides its data: each word, less any datum in it, with its box. */
export function textBesideData(page: OcrPage): ReadText[] {
  return pageLines(page).flatMap((line) =>
    runsBesideData(line, findLineData(line).detections).flatMap(([start, end]) => {
      const box = spanBox(page, line, start, end);
      return box ? [{ box, text: line.text.slice(start, end) }] : [];
    }),
  );
}

/** Where the page's personal labels read with their value on their line are: no column's header. */
export function labelsWithTheirValues(page: OcrPage): Box[] {
  return pageLines(page).flatMap((line) => labelsWithValues(line.text).flatMap((label) => spanBox(page, line, label.start, label.end) ?? []));
}

function labelValueRegions(page: OcrPage, line: PageLine, label: OpenLabel): PersonalRegion[] {
  const labelBox = spanBox(page, line, label.start, label.end);
  if (!labelBox) return [];
  const labelEndsLine = endsLine(line, label.end);
  const nextOnLine = labelEndsLine ? undefined : firstWordRightOf(line, labelBox);
  const below = cellBelow(page, labelBox, nextOnLine?.x0);
  const blanks = labelEndsLine ? rightOfLabel(page, labelBox, line) : blankBefore(labelBox, nextOnLine);
  return [
    ...blanks.map((box) => ({ box, kind: label.kind, evidence: 'layout' as const, text: '' })),
    ...(below.length ? [{ box: union(below.map((word) => word.box)), kind: label.kind, evidence: 'cell' as const, text: below.map((word) => word.text).join(' '), label: labelBox }] : []),
  ];
}

/**
 * The blank between a label and the next word on its line, when it is a field's width: where the
 * value must be that was not read (a photo's faint number between "门诊号" and "科室").
 */
function blankBefore(labelBox: Box, next: Box | undefined): Box[] {
  if (!next || next.x0 - labelBox.x1 < MIN_BLANK_FIELD_HEIGHTS * heightOf(labelBox)) return [];
  return [{ x0: labelBox.x1, y0: labelBox.y0, x1: next.x0, y1: labelBox.y1 }];
}

/** The first group of words right of the label on its row, and the gap up to it (or a blank field's width). */
function rightOfLabel(page: OcrPage, labelBox: Box, line: PageLine): Box[] {
  const group = wordsRightOf(page, labelBox, line);
  const blankField: Box = { x0: labelBox.x1, y0: labelBox.y0, x1: labelBox.x1 + RIGHT_REACH_HEIGHTS * heightOf(labelBox), y1: labelBox.y1 };
  return group.length ? [union([blankField, ...group.map((word) => word.box)])] : [blankField];
}
