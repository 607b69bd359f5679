import { describe, expect, it } from 'vitest';
import type { Box, OcrPage, OcrWord } from '../../../src/engines/types.js';
import { outOfFrame, padded, roomAlong, toRaster } from '../../../src/operations/case-file-process/geometry.js';
import { boundingBox, insideQuad, quadOf, type Point, type Quad } from '../../../src/engines/ocr/plane.js';
import { boxOfChars } from '../../../src/engines/ocr/line-text.js';
import { pageLines } from '../../../src/operations/personal-data/lines.js';
import { personalRegions } from '../../../src/operations/case-file-process/locate.js';
import { spanBox } from '../../../src/operations/personal-data/layout.js';
import type { PersonalKind } from '../../../src/operations/personal-data/index.js';
import { coveredShare, isEarlierTextReadAgain } from '../../../src/operations/case-file-process/redact-page.js';

const word = (text: string, x0: number, y0: number, x1: number, line: number, y1 = y0 + 40): OcrWord => ({
  text,
  confidence: 90,
  box: { x0, y0, x1, y1 },
  line,
});

const page = (words: OcrWord[], extra: Partial<OcrPage> = {}): OcrPage => ({
  text: '',
  words,
  width: 1000,
  height: 800,
  confidence: 90,
  rotation: 0,
  deskewRadians: 0,
  ...extra,
});

const raster = { width: 2000, height: 1600, readWidth: 1000, readHeight: 800 };

/** The box around a quad carried to the raster, rounded to a tenth of a pixel. */
const around = (box: Box, reading: OcrPage, frame = raster) => {
  const b = boundingBox(toRaster(box, reading, frame));
  const round = (v: number) => Math.round(v * 10) / 10;
  return { x0: round(b.x0), y0: round(b.y0), x1: round(b.x1), y1: round(b.y1) };
};

describe('OCR frame to raster', () => {
  it('scales from the reading to the raster', () => {
    expect(toRaster({ x0: 10, y0: 20, x1: 30, y1: 40 }, page([]), raster)).toEqual(quadOf({ x0: 20, y0: 40, x1: 60, y1: 80 }));
  });

  it.each([
    // The read page is 1000×800; turned 90° clockwise it is 800×1000 and its top-left corner is at the top right.
    [90, { width: 800, height: 1000 }, { x0: 790, y0: 0, x1: 800, y1: 10 }, { x0: 0, y0: 0, x1: 20, y1: 20 }],
    [180, { width: 1000, height: 800 }, { x0: 990, y0: 790, x1: 1000, y1: 800 }, { x0: 0, y0: 0, x1: 20, y1: 20 }],
    [270, { width: 800, height: 1000 }, { x0: 0, y0: 990, x1: 10, y1: 1000 }, { x0: 0, y0: 0, x1: 20, y1: 20 }],
  ] as const)('undoes a %i° turn', (rotation, size, turnedBox, expected) => {
    expect(around(turnedBox, page([], { rotation, ...size }))).toEqual(expected);
  });

  it('undoes a turn by any angle: a box of the straightened page lands on the raster as the same rectangle, turned back', () => {
    // 1000×800 turned 30° clockwise is about 1266×1193; its centre is the page's centre.
    const turned = page([], { rotation: 30, width: 1266, height: 1193 });
    const quad = toRaster({ x0: 583, y0: 546.5, x1: 683, y1: 646.5 }, turned, { ...raster, width: 1000, height: 800 });
    // The box's top-left corner lay 50 px left of and above the centre; turned back 30° it lies at (500, 400) + R(−30°)(−50, −50).
    const r = (-30 * Math.PI) / 180;
    expect(quad[0].x).toBeCloseTo(500 + -50 * Math.cos(r) + 50 * Math.sin(r), 6);
    expect(quad[0].y).toBeCloseTo(400 + -50 * Math.sin(r) - 50 * Math.cos(r), 6);
    // A turned square: its sides keep their length.
    expect(Math.hypot(quad[1].x - quad[0].x, quad[1].y - quad[0].y)).toBeCloseTo(100, 6);
    expect(Math.hypot(quad[3].x - quad[0].x, quad[3].y - quad[0].y)).toBeCloseTo(100, 6);
  });

  it('undoes the deskew about the page centre (a corner box moves, the centre does not)', () => {
    const skewed = page([], { deskewRadians: 0.05 });
    const centre = around({ x0: 495, y0: 395, x1: 505, y1: 405 }, skewed, { ...raster, width: 1000, height: 800 });
    expect(centre.x0).toBeCloseTo(494.8, 0);
    const corner = around({ x0: 0, y0: 0, x1: 10, y1: 10 }, skewed, { ...raster, width: 1000, height: 800 });
    // The top-left corner rotated back by 0.05 rad clockwise moves down (y = 400 - 500·sin − 400·cos ≈ 25).
    expect(corner.y0).toBeGreaterThan(20);
  });

  it('pads by a share of the line height, at least a few pixels', () => {
    expect(padded({ x0: 100, y0: 100, x1: 200, y1: 200 })).toEqual({ x0: 85, y0: 90, x1: 215, y1: 210 });
    expect(padded({ x0: 100, y0: 100, x1: 110, y1: 105 })).toEqual({ x0: 94, y0: 96, x1: 116, y1: 109 });
  });

  it('pads a box estimated from its word (no placed characters) by half a line height, up to the next word, and below its descenders', () => {
    const box = { x0: 100, y0: 100, x1: 200, y1: 140 };
    expect(padded(box, { x0: undefined, x1: undefined }, true)).toEqual({ x0: 80, y0: 88, x1: 220, y1: 152 });
    expect(padded(box, { x0: 90, x1: 210 }, true)).toMatchObject({ x0: 80, x1: 210 });
  });

  it('beside neighbouring words, fills half the blank to the left one and stops halfway to the right one', () => {
    const box = { x0: 100, y0: 100, x1: 200, y1: 140 };
    // 30 px of blank to the left word: half of it painted; 2 px to the right one: 1 px.
    expect(padded(box, { x0: 70, x1: 202 })).toEqual({ x0: 85, y0: 96, x1: 201, y1: 144 });
    // Far neighbours: one line height of blank at most to the left, the usual padding to the right.
    expect(padded(box, { x0: 0, x1: 400 })).toMatchObject({ x0: 60, x1: 206 });
    // Neighbours whose boxes reach into the datum's: the usual padding to the left, none to the right.
    expect(padded(box, { x0: 120, x1: 190 })).toMatchObject({ x0: 94, x1: 200 });
  });

  it('pads an ID number up and down only as far as the nearest word of the line above and below, never nearer than the least padding', () => {
    const box = { x0: 100, y0: 100, x1: 200, y1: 140 };
    // An ID number (code): 12 px of padding wanted on each side; the next line's words begin 8 px below it.
    expect(padded(box, { x0: undefined, x1: undefined, y0: 90, y1: 148 }, false, true)).toMatchObject({ y0: 90, y1: 148 });
    // Lines farther off than the padding do not cut it.
    expect(padded(box, { x0: undefined, x1: undefined, y0: 20, y1: 200 }, false, true)).toMatchObject({ y0: 88, y1: 152 });
    // Neighbours whose boxes touch or reach into the datum's: the least padding (0.1 of the height, 4 px at least) stays.
    expect(padded(box, { x0: undefined, x1: undefined, y0: 110, y1: 141 }, false, true)).toMatchObject({ y0: 96, y1: 144 });
    expect(padded(box, { x0: undefined, x1: undefined, y0: 110, y1: 141 })).toMatchObject({ y0: 96, y1: 144 });
  });
});

describe('lines and character boxes', () => {
  it('joins words as the OCR text does and maps every character back to its word', () => {
    const lines = pageLines(page([word('张', 200, 0, 240, 0), word('姓名:', 0, 0, 100, 0), word('Stage', 0, 100, 100, 1), word('IIIA', 120, 100, 200, 1)]));
    expect(lines.map((line) => line.text)).toEqual(['姓名:张', 'Stage IIIA']);
    expect([...lines[0]!.wordOf]).toEqual([0, 0, 0, 1]);
    expect([...lines[1]!.wordOf]).toEqual([0, 0, 0, 0, 0, -1, 1, 1, 1, 1]);
  });

  it('gives Chinese characters twice the width of Latin ones, and spaces half, inside a box', () => {
    const box = { x0: 0, y0: 0, x1: 750, y1: 40 };
    // 名 (2) : (1) space (0.5) 张 (2) 三 (2) = 7.5 units of 100 px
    expect(boxOfChars('名: 张三', box, 3, 5)).toMatchObject({ x0: 350, x1: 750 });
    expect(boxOfChars('名: 张三', box, 0, 1)).toMatchObject({ x0: 0, x1: 200 });
  });

  it('gives a datum room up to the separate words around it, none where it is glued into a word', () => {
    const ocr = page([word('姓名:', 0, 0, 100, 0), word('张三', 130, 0, 210, 0), word('性别:男', 230, 0, 350, 0)]);
    const glued = page([word('姓名:张三', 0, 0, 180, 0), word('性别', 200, 0, 280, 0)]);
    expect(personalRegions(ocr).map((region) => region.room)).toEqual([{ x0: 100, x1: 230 }]);
    expect(personalRegions(glued).map((region) => region.room)).toEqual([{ x0: undefined, x1: 200 }]);
  });

  it('takes the punctuation after a datum in its word, whose width within the word is a guess', () => {
    const ocr = page([word('Tel', 0, 0, 60, 0), word('555-201-7788,', 80, 0, 340, 0), word('office', 360, 0, 480, 0)]);
    expect(personalRegions(ocr).map((region) => region.box.x1)).toEqual([340]);
  });

  it('a span over several words is one box covering the gaps between them', () => {
    const ocr = page([word('门诊号:', 0, 0, 140, 0), word('9005', 160, 0, 240, 0), word('1065', 260, 0, 340, 0)]);
    const [line] = pageLines(ocr);
    expect(line!.text).toBe('门诊号: 9005 1065');
    expect(spanBox(ocr, line!, 5, 14)).toEqual({ x0: 160, y0: 0, x1: 340, y1: 40 });
  });

  it('digit groups are one number cut into cells side by side, two numbers a column apart', () => {
    const cells = page([word('9005', 0, 0, 80, 0), word('1065', 120, 0, 200, 0)]);
    expect(personalRegions(cells).map((region) => [region.kind, region.box])).toEqual([['identifier', { x0: 0, y0: 0, x1: 200, y1: 40 }]]);
    // A reader's misreading of a corner mark ("Lin7527") on the row of a date at the far edge.
    const columns = page([word('Lin7527', 0, 0, 140, 0), word('2016', 900, 0, 980, 0), word('08', 990, 0, 1030, 0)]);
    expect(personalRegions(columns)).toEqual([]);
    // A number whole in one word is read as it was, wherever its neighbour stands.
    const whole = page([word('90051065', 0, 0, 160, 0), word('2016', 900, 0, 980, 0)]);
    expect(personalRegions(whole).map((region) => region.box.x1)).toEqual([160]);
  });
});

/**
 * A word on a line rising 15° to the right, as PP-OCR places it on a photo read straightened: each
 * character a 30 × 40 part of the line (its quad) and the box round it.
 */
function slantedWord(text: string, start: Point, line = 0): OcrWord {
  const [along, across] = [{ x: Math.cos(-Math.PI / 12), y: Math.sin(-Math.PI / 12) }, { x: Math.sin(Math.PI / 12), y: Math.cos(Math.PI / 12) }];
  const at = (s: number, t: number): Point => ({ x: start.x + along.x * s + across.x * t, y: start.y + along.y * s + across.y * t });
  const charQuads = [...text].map((_, i): Quad => [at(30 * i, 0), at(30 * (i + 1), 0), at(30 * (i + 1), 40), at(30 * i, 40)]);
  const chars = charQuads.map((quad) => boundingBox(quad));
  return { text, confidence: 90, box: boundingBox(charQuads.flat()), line, chars, charQuads };
}

describe('data on a line read aslant', () => {
  const number = slantedWord('门诊号:90051065', { x: 100, y: 400 });
  const straightened = page([number], { rotation: 20 });

  it('are their part of the line, painted turned with it: not the rows the box round them reaches', () => {
    const [region] = personalRegions(straightened);
    expect(region!.text).toBe('90051065');
    const core = outOfFrame(region!.along!, region!.along!.box);
    const [first, last] = [number.charQuads![4]!, number.charQuads![11]!];
    [first[0], last[1], last[2], first[3]].forEach((corner, i) => {
      expect(core[i]!.x).toBeCloseTo(corner.x, 6);
      expect(core[i]!.y).toBeCloseTo(corner.y, 6);
    });
    const paint = outOfFrame(region!.along!, padded(region!.along!.box, region!.room && roomAlong(region!.along!, region!.room), false, true));
    // Every corner of the datum's glyphs is under its paint.
    for (const corner of core) expect(insideQuad({ x: corner.x + (corner.x > 300 ? -0.5 : 0.5), y: corner.y }, paint)).toBe(true);
    // A row 1.2 line heights above the number's middle: inside the box round it, not under its paint.
    const middle = { x: (core[0].x + core[2].x) / 2, y: (core[0].y + core[2].y) / 2 };
    const rowAbove = { x: middle.x + 48 * Math.sin(-Math.PI / 12), y: middle.y - 48 * Math.cos(Math.PI / 12) };
    expect(insideQuad(rowAbove, quadOf(padded(region!.box, region!.room, false, true)))).toBe(true);
    expect(insideQuad(rowAbove, paint)).toBe(false);
  });

  it('are one line only where every character lies in it: a number read on two lines at different heights keeps its box', () => {
    const oneLine = page([slantedWord('9005', { x: 100, y: 400 }), slantedWord('1065', { x: 100 + 150 * Math.cos(Math.PI / 12), y: 400 - 150 * Math.sin(Math.PI / 12) })], { rotation: 20 });
    const twoLines = page([slantedWord('9005', { x: 100, y: 400 }), slantedWord('1065', { x: 100 + 150 * Math.cos(Math.PI / 12), y: 400 - 150 * Math.sin(Math.PI / 12) + 30 })], { rotation: 20 });
    expect(personalRegions(oneLine).map((region) => [region.text, region.along !== undefined])).toEqual([['9005 1065', true]]);
    expect(personalRegions(twoLines).map((region) => [region.text, region.along !== undefined])).toEqual([['9005 1065', false]]);
  });

  it('are boxes as before on a page read as printed, and where the reader gave no quads', () => {
    expect(personalRegions(page([number])).map((region) => region.along)).toEqual([undefined]);
    const boxesOnly = { ...number, charQuads: undefined };
    expect(personalRegions(page([boxesOnly], { rotation: 20 })).map((region) => region.along)).toEqual([undefined]);
  });

  it('stop where the word beside them begins, taken along their line', () => {
    const frame = personalRegions(straightened)[0]!.along!;
    const middle = (frame.box.y0 + frame.box.y1) / 2;
    const end = outOfFrame(frame, { x0: frame.box.x1, y0: middle, x1: frame.box.x1, y1: middle })[0];
    expect(roomAlong(frame, { x0: undefined, x1: end.x }).x1).toBeCloseTo(frame.box.x1, 6);
    expect(roomAlong(frame, { x0: undefined, x1: undefined })).toEqual({ x0: undefined, x1: undefined });
  });
});

describe('label-value layout', () => {
  it('a label ending its line takes the words to its right on the same row, read as another line', () => {
    const ocr = page([word('姓名:', 0, 0, 100, 0), word('孟', 130, 2, 170, 1), word('丁', 172, 2, 212, 1), word('性别', 600, 0, 680, 2)]);
    const regions = personalRegions(ocr).filter((region) => region.evidence === 'layout');
    expect(regions).toHaveLength(1);
    expect(regions[0]!.box.x1).toBe(212);
    expect(regions[0]!.box.x1).toBeLessThan(600);
  });

  it('a header label takes the cell below it, bounded by the next header', () => {
    const ocr = page([
      word('姓名', 0, 0, 80, 0),
      word('性别', 300, 0, 380, 0),
      word('张三', 10, 60, 90, 1),
      word('男', 310, 60, 350, 1),
    ]);
    const layout = personalRegions(ocr).filter((region) => region.evidence !== 'text');
    // The blank up to the next header (a field's width: where a value may stand unread), and the
    // cell below, its words read as they stand under their label.
    expect(layout.map(({ evidence, box, text, label }) => ({ evidence, box, text, label }))).toEqual([
      { evidence: 'layout', box: { x0: 80, y0: 0, x1: 300, y1: 40 }, text: '', label: undefined },
      { evidence: 'cell', box: { x0: 10, y0: 60, x1: 90, y1: 100 }, text: '张三', label: { x0: 0, y0: 0, x1: 80, y1: 40 } },
    ]);
  });

  it('a code read only in part takes the rest of its field: the blank up to the next word', () => {
    const part = page([word('门诊号', 0, 0, 120, 0), word('9', 130, 0, 150, 0), word('科室', 400, 0, 480, 0)]);
    expect(personalRegions(part).map((region) => [region.evidence, region.box])).toEqual([
      ['text', { x0: 130, y0: 0, x1: 150, y1: 40 }],
      ['layout', { x0: 150, y0: 0, x1: 400, y1: 40 }],
    ]);
    const whole = page([word('门诊号', 0, 0, 120, 0), word('90051065', 130, 0, 290, 0), word('科室', 400, 0, 480, 0)]);
    expect(personalRegions(whole).map((region) => region.evidence)).toEqual(['text']);
  });

  /** An ID number with a line set close above and below it: its age, and its diagnosis. */
  const numberBetweenLines = [word('年龄:67岁', 0, 0, 200, 0), word('病历号:', 0, 45, 140, 1), word('00931562', 150, 45, 310, 1), word('临床诊断:右肺上叶腺癌', 0, 92, 400, 3)];

  it('bounds a datum above and below by the words of other lines that stand over or under it, not by words of its row or far to its side', () => {
    // The same row read as another line, a little lower: its middle lies within the number's box;
    // and below, but more than a line height to the right of the number: out of its paint's reach.
    const ocr = page([...numberBetweenLines, word('科室:内科', 400, 50, 560, 2), word('送检医生', 400, 88, 560, 4)]);
    const [number] = personalRegions(ocr);
    expect(number).toMatchObject({ text: '00931562', room: { y0: 40, y1: 92 } });
    expect(padded(number!.box, number!.room, false, true)).toMatchObject({ y0: 40, y1: 92 });
  });

  it.each([
    ['turned by other than a quarter turn', { rotation: 30 }],
    ['seen in its flat view', { perspective: { p: 0.0002, q: 0.0001 } }],
  ] as const)('leaves a datum its whole padding on a page read %s, where a neighbour\'s box is a few pixels off its print', (_, lie) => {
    expect(personalRegions(page(numberBetweenLines, { rotation: 90 }))[0]!.room).toMatchObject({ y0: 40, y1: 92 });
    const [number] = personalRegions(page(numberBetweenLines, lie));
    expect(number!.room).toMatchObject({ y0: undefined, y1: undefined });
    expect(padded(number!.box, number!.room, false, true)).toMatchObject({ y0: 33, y1: 97 });
  });

  it('the rest of a code\'s field is bounded by the lines above and below as the code is', () => {
    const ocr = page([word('年龄:67岁', 150, 0, 350, 0), word('床号', 0, 42, 80, 1), word('23', 90, 42, 130, 1), word('采样时间', 100, 86, 260, 2)]);
    expect(personalRegions(ocr).map((region) => [region.evidence, region.room])).toEqual([
      ['text', { x0: 80, x1: undefined, y0: 40, y1: 86 }],
      ['layout', { x0: undefined, x1: undefined, y0: 40, y1: 86 }],
    ]);
  });

  it('a label whose value was not read takes the blank up to the next word on its line, when that is a field wide', () => {
    const unread = page([word('门诊号', 0, 0, 120, 0), word('科室', 400, 0, 480, 0), word('儿科', 500, 0, 580, 0)]);
    expect(personalRegions(unread).map((region) => [region.evidence, region.box])).toEqual([['layout', { x0: 120, y0: 0, x1: 400, y1: 40 }]]);
    const tight = page([word('门诊号', 0, 0, 120, 0), word('科室', 140, 0, 220, 0)]);
    expect(personalRegions(tight)).toEqual([]);
  });
});

describe('evidence', () => {
  it('a datum read is text evidence; a garbled code after its label only marks where a value must be', () => {
    const ocr = page([word('姓名:', 0, 0, 100, 0), word('张三', 110, 0, 190, 0), word('门诊号:', 0, 60, 140, 1), word('IERE', 150, 60, 230, 1)]);
    expect(personalRegions(ocr).map((region) => [region.kind, region.evidence])).toEqual([
      ['name', 'text'],
      ['hospital_id', 'layout'],
      // A code read short: the rest of its field too.
      ['hospital_id', 'layout'],
    ]);
  });
});

describe('audit coverage', () => {
  it('measures how much of a box lies under paint', () => {
    const box = quadOf({ x0: 0, y0: 0, x1: 100, y1: 10 });
    expect(coveredShare(box, [quadOf({ x0: -5, y0: -5, x1: 105, y1: 15 })])).toBe(1);
    expect(coveredShare(box, [quadOf({ x0: 0, y0: 0, x1: 50, y1: 10 }), quadOf({ x0: 50, y0: 0, x1: 100, y1: 10 })])).toBe(1);
    expect(coveredShare(box, [quadOf({ x0: 0, y0: 0, x1: 50, y1: 10 })])).toBe(0.5);
    expect(coveredShare(box, [])).toBe(0);
  });

  it('judges a box by its middle: a top or bottom sticking out of the cover does not count', () => {
    const box = quadOf({ x0: 0, y0: 0, x1: 100, y1: 40 });
    expect(coveredShare(box, [quadOf({ x0: 0, y0: 6, x1: 100, y1: 34 })])).toBe(1);
    expect(coveredShare(box, [quadOf({ x0: 0, y0: 0, x1: 100, y1: 20 })])).toBe(0.5);
  });

  it('measures a turned quad along and across its own line', () => {
    // A line at 45°, and paint over its first half, turned with it.
    const at = (u: number, v: number) => ({ x: 100 + (u - v) * Math.SQRT1_2, y: 100 + (u + v) * Math.SQRT1_2 });
    const line = [at(0, 0), at(100, 0), at(100, 20), at(0, 20)] as const;
    const firstHalf = [at(-2, -2), at(50, -2), at(50, 22), at(-2, 22)] as const;
    expect(coveredShare([...line], [[...firstHalf]])).toBe(0.5);
    // The box around the paint would cover most of the line: the quad does not.
    expect(coveredShare([...line], [quadOf(boundingBox([...firstHalf]))])).toBeGreaterThan(0.5);
  });
});

describe('the audit: text read there before', () => {
  const before = (text: string, x0: number, x1: number) => ({ text, box: quadOf({ x0, y0: 0, x1, y1: 40 }) });
  const read = (text: string, x0: number, x1: number, kind: PersonalKind = 'name') => ({ text, kind, core: quadOf({ x0, y0: 2, x1, y1: 38 }) });
  const paint = [quadOf({ x0: 0, y0: -4, x1: 100, y1: 44 })];

  it.each([
    ['生别', '性别:女 年龄:44岁', 100, 180],
    ['南核', '审核医师:', 96, 170],
    ['Em', '复核医师:', 100, 200],
    ['病史', '代诉病史，单位', 120, 190],
  ])('%s read where the first reading had %s is that text again', (text, readFirst, x0, x1) => {
    expect(isEarlierTextReadAgain(read(text, x0, x1), [before(readFirst, 110, 300)], paint)).toBe(true);
  });

  it('a Chinese character the text there did not have is data, even on the box OCR drew over it', () => {
    expect(isEarlierTextReadAgain(read('周', 150, 200), [before('配偶', 110, 210)], paint)).toBe(false);
  });

  it('a nicked label read again over its two words, one of them shared', () => {
    expect(isEarlierTextReadAgain(read('生别', 100, 180), [before('性', 104, 142), before('别', 142, 180)], paint)).toBe(true);
  });

  it('a reading where the first one read junk is data', () => {
    expect(isEarlierTextReadAgain(read('REN', 110, 190), [before('送检医生:', 0, 108), before('=EN', 112, 192)], [])).toBe(false);
  });

  it('a variant read away from that text is data', () => {
    expect(isEarlierTextReadAgain(read('生别', 400, 480), [before('性别', 110, 200)], paint)).toBe(false);
  });

  it.each([
    ['201608241030', 'Discharge: 2016-08-24 10:30'],
    ['T2aN2MOICD10CG341', 'T2aN2M0, ICD-10 C34.1'],
  ])('an identifier %s read where the first reading had %s is that text run together', (text, readFirst) => {
    expect(isEarlierTextReadAgain(read(text, 120, 290, 'identifier'), [before(readFirst, 110, 300)], [])).toBe(true);
  });

  it.each([
    ['a digit it did not have', '201608241039', 'Discharge: 2016-08-24 10:30'],
    ['digits in another order', '201608241003', 'Discharge: 2016-08-24 10:30'],
    ['numbers it set apart by spaces alone', '5552017788', 'Tel 555 201 7788'],
  ])('an identifier read where the first reading had %s is data', (_what, text, readFirst) => {
    expect(isEarlierTextReadAgain(read(text, 120, 290, 'identifier'), [before(readFirst, 110, 300)], [])).toBe(false);
  });

  it('digits the first reading read there are read again only as an identifier', () => {
    expect(isEarlierTextReadAgain(read('2016 0824', 120, 290, 'phone'), [before('2016-08-24', 110, 300)], [])).toBe(false);
  });
});
