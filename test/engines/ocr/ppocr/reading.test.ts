import { describe, expect, it } from 'vitest';
import { decodeCtc } from '../../../../src/engines/ocr/ppocr/ctc.js';
import { doubtfulNarrowGlyphs, windowsAround, withNarrowGlyphsCounted } from '../../../../src/engines/ocr/ppocr/narrow-glyphs.js';
import { endInDoubt, roomierCut, withEndsReadRoomier } from '../../../../src/engines/ocr/ppocr/line-ends.js';
import type { Quad } from '../../../../src/engines/ocr/plane.js';
import type { DetectionInput } from '../../../../src/engines/ocr/ppocr/detect.js';
import { pageRotation, straighteningTurn, textOutline, textRegion } from '../../../../src/engines/ocr/ppocr/orientation.js';
import { turnedHalf, upsideDownVote, windowOf } from '../../../../src/engines/ocr/ppocr/recognize.js';
import { assemblePage, type ReadFrame } from '../../../../src/engines/ocr/ppocr/page.js';
import { boundingBox, turnedSize, turnPoint, type QuarterTurn } from '../../../../src/engines/ocr/plane.js';
import type { LineReading } from '../../../../src/engines/ocr/ppocr/recognize.js';

/** The best path of `best` classes, each read with `probability`. */
const path = (best: number[], probability = 0.9) => [BigInt64Array.from(best.map(BigInt)), new Float32Array(best.length).fill(probability)] as const;

describe('CTC decoding', () => {
  const alphabet = ['张', '三', 'A'];

  it('collapses repeats, drops blanks, keeps a doubled character split by a blank, and the steps of each', () => {
    const chars = decodeCtc(...path([0, 1, 1, 0, 2, 0, 2, 2, 3]), alphabet);
    expect(chars.map((c) => c.char).join('')).toBe('张三三A');
    expect(chars.map((c) => [c.first, c.last])).toEqual([
      [1, 2],
      [4, 4],
      [6, 7],
      [8, 8],
    ]);
    expect(chars[0]!.probability).toBeCloseTo(0.9);
  });

  it('reads nothing from blanks, nor from a class past the alphabet', () => {
    expect(decodeCtc(...path([0, 0, 0]), alphabet)).toEqual([]);
    expect(decodeCtc(...path([0, 9, 0]), alphabet)).toEqual([]);
  });
});

describe('narrow glyphs CTC may have read too few of', () => {
  const alphabet = ['期', 'I', 'l', '：'];
  /** The best path of `steps`, each a class and its probability. */
  const steps = (...pairs: Array<[number, number]>) => [BigInt64Array.from(pairs.map(([c]) => BigInt(c))), Float32Array.from(pairs.map(([, p]) => p))] as const;
  const doubts = (...pairs: Array<[number, number]>) => {
    const [best, probability] = steps(...pairs);
    return doubtfulNarrowGlyphs(decodeCtc(best, probability, alphabet), best, probability);
  };

  it('doubts an unsure narrow glyph read over two steps, or beside an unsure blank one step clear of it', () => {
    // ：I期 with "II" printed tight: the I's on adjacent steps, no blank between them.
    expect(doubts([4, 1], [0, 1], [2, 0.63], [2, 0.74], [0, 1], [1, 1])).toEqual([1]);
    // The second I's peak lost to the blank two steps on.
    expect(doubts([4, 1], [0, 1], [2, 0.91], [0, 1], [0, 0.8], [1, 1])).toEqual([1]);
  });

  it('trusts a narrow glyph read surely, a blank that wavers on its own edge, and wide glyphs', () => {
    expect(doubts([4, 1], [0, 1], [3, 0.99], [3, 0.99], [0, 1], [1, 1])).toEqual([]);
    expect(doubts([4, 1], [0, 1], [2, 0.91], [0, 0.7], [0, 1], [1, 1])).toEqual([]);
    expect(doubts([1, 0.6], [1, 0.6], [0, 1], [0, 0.5], [4, 0.6])).toEqual([]);
  });

  /** Characters at steps 8 px apart in a crop `width` long. */
  const read = (width: number, ...chars: Array<[string, number, number]>) => ({
    chars: chars.map(([char, first, last]) => ({ char, first, last, probability: 0.9 })),
    pixelsPerStep: 8,
    cropWidth: width,
  });
  // ：I期 read at steps 20, 24–25, 28 of a 464 px crop: the I's middle at pixel 200.
  const first = read(464, ['：', 20, 20], ['I', 24, 25], ['期', 28, 28]);
  /** `chars` read from the whole line again, from a crop 1.5 times longer. */
  const whole = (...chars: Array<[string, number, number]>) => ({ ...read(696, ...chars), window: { from: 0, to: 464 } });

  it('reads again four line thicknesses either side of each doubtful glyph, within the line, one window for glyphs close together', () => {
    const line = read(1000, ['l', 5, 5], ['l', 20, 20], ['I', 60, 61], ['|', 118, 118]);
    // Middles at pixels 44, 164, 488 and 948; a thickness of 48 px reaches 192 px either side.
    expect(windowsAround(line, [0, 2, 3], 48)).toEqual([
      { from: 0, to: 236 },
      { from: 296, to: 680 },
      { from: 756, to: 1000 },
    ]);
    expect(windowsAround(line, [0, 1, 3], 48)).toEqual([
      { from: 0, to: 356 },
      { from: 756, to: 1000 },
    ]);
  });

  it('cuts a window from the line along its length, stretched', () => {
    // A line 200 by 40 read into a crop 240 px long: pixels 48 to 96 of it, twice as long as they stand.
    const window = windowOf({ quad: quad(100, 0, 300, 40), aspect: 5 }, { from: 48, to: 96 }, 240, 2);
    expect(window.quad.map(({ x, y }) => [x, y])).toEqual([
      [140, 0],
      [180, 0],
      [180, 40],
      [140, 40],
    ]);
    expect(window.aspect).toBe(2);
  });

  it('takes the most of the glyph a stretched reading has between its neighbours, and keeps the rest as first read', () => {
    const once = whole(['：', 30, 30], ['I', 37, 37], ['期', 41, 41]);
    const twice = whole(['：', 30, 30], ['I', 36, 36], ['I', 38, 38], ['期', 41, 41]);
    const counted = withNarrowGlyphsCounted(first, [1], [once, twice]);
    expect(counted.map((c) => c.char).join('')).toBe('：II期');
    // Each I stands where the stretched reading saw it, in the first reading's steps, between its neighbours.
    expect(counted[1]!.first).toBeCloseTo(36.5 / 1.5 - 0.5);
    expect(counted[2]!.first).toBeCloseTo(38.5 / 1.5 - 0.5);
    expect(counted.filter((c) => c.char !== 'I')).toEqual(first.chars.filter((c) => c.char !== 'I'));
  });

  it('places what a window read stretched reads within the window', () => {
    // Pixels 104 to 296 of the line read into a crop 288 px long: its pixel p stands at 104 + p / 1.5.
    const window = { ...read(288, ['：', 11, 11], ['I', 16, 16], ['I', 18, 18], ['期', 23, 23]), window: { from: 104, to: 296 } };
    const counted = withNarrowGlyphsCounted(first, [1], [window]);
    expect(counted.map((c) => c.char).join('')).toBe('：II期');
    expect(counted[1]!.first).toBeCloseTo((104 + 132 / 1.5) / 8 - 0.5);
    expect(counted[2]!.first).toBeCloseTo((104 + 148 / 1.5) / 8 - 0.5);
  });

  it('keeps the glyph as first read where no stretched reading that holds it reads more than one of it alone there', () => {
    expect(withNarrowGlyphsCounted(first, [1], [])).toEqual(first.chars);
    for (const stretched of [
      whole(['：', 30, 30], ['I', 37, 37], ['期', 41, 41]),
      whole(['：', 30, 30], ['I', 36, 36], ['l', 38, 38], ['期', 41, 41]),
      whole(['：', 30, 30], ['期', 41, 41]),
      // A window that ends short of the glyph, its two I's between the glyph and its next neighbour.
      { ...read(96, ['I', 0, 0], ['I', 1, 1]), window: { from: 204, to: 268 } },
    ]) {
      expect(withNarrowGlyphsCounted(first, [1], [stretched])).toEqual(first.chars);
    }
  });
});

describe('a line whose end character is unsure, read again with more room round it', () => {
  const chars = (text: string, ...probabilities: number[]) => [...text].map((char, i) => ({ char, first: i * 4, last: i * 4, probability: probabilities[i] ?? 0.99 }));

  it('doubts a Chinese character read unsurely at either end, and nothing else', () => {
    expect(endInDoubt(chars('审核者樊一第', 0.97, 1, 0.87, 0.99, 0.98, 0.51))).toBe(true);
    expect(endInDoubt(chars('第一', 0.6))).toBe(true);
    // Inside the line, or a digit at its end (a table's rule beside it reads as one).
    expect(endInDoubt(chars('樊一第', 0.99, 0.5, 0.99))).toBe(false);
    expect(endInDoubt(chars('1.48', 0.6))).toBe(false);
    expect(endInDoubt([])).toBe(false);
  });

  it('lengthens the quad by a quarter of its thickness at each end and thickens it by 15% on each side', () => {
    const { quad: roomier, aspect } = roomierCut(quad(100, 0, 300, 40), 5);
    expect(roomier.map(({ x, y }) => [x, y])).toEqual([
      [90, -6],
      [310, -6],
      [310, 46],
      [90, 46],
    ]);
    expect(aspect).toBeCloseTo(220 / 52, 10);
  });

  it('keeps the room in proportion along a tilted line', () => {
    const tilted: Quad = [
      { x: 0, y: 0 },
      { x: 80, y: 60 },
      { x: 56, y: 92 },
      { x: -24, y: 32 },
    ];
    const { quad: roomier, aspect } = roomierCut(tilted, 2.5);
    const length = Math.hypot(roomier[1].x - roomier[0].x, roomier[1].y - roomier[0].y);
    const thickness = Math.hypot(roomier[3].x - roomier[0].x, roomier[3].y - roomier[0].y);
    expect(length).toBeCloseTo(100 + 2 * 10, 10);
    expect(thickness).toBeCloseTo(40 * 1.3, 10);
    expect(aspect).toBeCloseTo(length / thickness, 10);
  });

  it('takes the end character from the roomier reading where it is surer of it, and only there', () => {
    const first = chars('审核者樊一第', 0.97, 1, 0.87, 0.99, 0.98, 0.51);
    const roomier = chars('审核者樊一笋', 0.96, 0.99, 0.87, 1, 0.97, 0.83);
    const taken = withEndsReadRoomier(first, roomier);
    expect(taken.map((c) => c.char).join('')).toBe('审核者樊一笋');
    expect(taken.slice(0, 5)).toEqual(first.slice(0, 5));
    expect(taken[5]).toEqual({ ...first[5], char: '笋', probability: 0.83 });
  });

  it('keeps the first reading where the roomier one is less sure, reads a mark beside the line, or reads the line otherwise', () => {
    const first = chars('樊一第', 0.99, 0.98, 0.51);
    for (const roomier of [chars('樊一笋', 0.99, 0.98, 0.4), chars('」樊一第', 0.8), chars('樊」', 0.99, 0.9), chars('樊二笋', 0.99, 0.99, 0.9)]) {
      expect(withEndsReadRoomier(first, roomier)).toEqual(first);
    }
  });
});

/** An 800 × 600 page read as it lies, turned `quarter` to be upright (after `straightened` degrees). */
const frame = (quarter: QuarterTurn = 0, straightened = 0): ReadFrame => ({
  source: { width: 800, height: 600 },
  margin: 0,
  rotation: straightened + quarter,
  upright: turnedSize({ width: 800, height: 600 }, straightened + quarter),
});

const quad = (x0: number, y0: number, x1: number, y1: number): Quad => [
  { x: x0, y: y0 },
  { x: x1, y: y0 },
  { x: x1, y: y1 },
  { x: x0, y: y1 },
];

/** A line of `text` read along `q`, one character per 4 steps of 8 px at the recogniser's 48 px height. */
function line(text: string, q: Quad, probability = 0.95): LineReading {
  const chars = [...text].map((char, i) => ({ char, first: i * 4 + 1, last: i * 4 + 2, probability }));
  return { quad: q, chars, pixelsPerStep: 8, cropWidth: text.length * 32 };
}

describe('a page from its read lines', () => {
  it('joins the cells of one row, places every character, and keeps rows in order', () => {
    // 48 px high lines at the crop's scale: the quads are the crops' own size.
    const page = assemblePage(
      [line('年龄56', quad(400, 0, 528, 48)), line('姓名张三', quad(0, 2, 128, 50)), line('诊断', quad(0, 100, 64, 148))],
      frame(),
    );
    expect(page.text).toBe('姓名张三  年龄56\n诊断');
    expect(page.words.map((w) => [w.text, w.line])).toEqual([
      ['姓名张三', 0],
      ['年龄56', 0],
      ['诊断', 1],
    ]);
    const name = page.words[0]!;
    expect(name.chars).toHaveLength(4);
    // The third character (张) sits in the third quarter of its line.
    expect(name.chars![2]!.x0).toBeGreaterThanOrEqual(60);
    expect(name.chars![2]!.x1).toBeLessThanOrEqual(100);
    expect(page.confidence).toBe(95);
  });

  it('places each character of a line aslant by its part of the line, and by the box round that', () => {
    // A line rising 1 px in 4 to the right, 128 × 48 along and across it.
    const slanted: Quad = [{ x: 100, y: 300 }, { x: 224, y: 269 }, { x: 236, y: 315.6 }, { x: 112, y: 346.6 }];
    const [word] = assemblePage([line('门诊号9', slanted)], frame()).words;
    expect(word!.charQuads).toHaveLength(4);
    word!.charQuads!.forEach((part, i) => {
      const [box, round] = [word!.chars![i]!, boundingBox(part)];
      for (const side of ['x0', 'y0', 'x1', 'y1'] as const) expect(Math.abs(box[side] - round[side])).toBeLessThanOrEqual(1);
    });
    // Consecutive characters share their side, and the first and last reach the line's ends.
    expect(word!.charQuads![1]![0]).toEqual(word!.charQuads![0]![1]);
    expect(word!.charQuads![0]![0]).toEqual(slanted[0]);
    expect(word!.charQuads![3]![2]).toEqual(slanted[2]);
  });

  it('groups the rows of a photo taken at a slant as the page is seen flat, where its rows run parallel', () => {
    // Rows converging to the left (the far side): a header row's far cell stands level with the
    // next row's near cell. Lines of two characters give the rows no direction of their own.
    const lines = [line('姓名', quad(70, 222, 130, 239)), line('年龄', quad(470, 177, 530, 203)), line('52', quad(470, 221, 530, 247))];
    expect(assemblePage(lines, frame()).text).toBe('年龄\n姓名  52');
    expect(assemblePage(lines, { ...frame(), perspective: { p: 0.001, q: 0 } }).text).toBe('姓名  年龄\n52');
  });

  it('drops a line the recogniser is unsure of, as PaddleOCR does, but counts it against the page', () => {
    const page = assemblePage([line('白细胞', quad(0, 0, 96, 48)), line('AS', quad(0, 100, 64, 148), 0.3)], frame());
    expect(page.text).toBe('白细胞');
    expect(page.illegibleLines).toBe(1);
    // Three characters at 95 and two dropped ones at 30.
    expect(page.confidence).toBe(69);
  });

  it('a page whose every line was dropped is no blank page: its lines are illegible, its confidence low', () => {
    const page = assemblePage([line('病理', quad(0, 0, 64, 48), 0.2), line('报告', quad(0, 100, 64, 148), 0.4)], frame());
    expect(page).toMatchObject({ text: '', words: [], illegibleLines: 2, confidence: 30 });
    expect(assemblePage([], frame())).toMatchObject({ words: [], illegibleLines: 0, confidence: 0 });
  });

  it('gives boxes in the upright frame when the page is turned', () => {
    const page = assemblePage([line('诊断', quad(0, 0, 64, 48))], frame(90));
    expect([page.width, page.height]).toEqual([600, 800]);
    const box = page.words[0]!.box;
    expect(box.x0).toBeGreaterThanOrEqual(600 - 48 - 1);
    expect(box.y1).toBeLessThanOrEqual(64 + 1);
  });

  it('reports its whole turn from the page sent: the straightening and the quarter turn', () => {
    expect(assemblePage([line('诊断', quad(0, 0, 64, 48))], frame(90, -25)).rotation).toBe(65);
    expect(assemblePage([line('诊断', quad(0, 0, 64, 48))], frame(0, -25)).rotation).toBe(335);
  });
});

/**
 * A detector's map of a page 640 × 480 (map pixels at page scale) whose text lines run at
 * `degrees` clockwise: bands 8 px thick every 24 px, broken into words, over the middle of the page.
 */
function mapOfLines(degrees: number, width = 640, height = 480): { probability: Float32Array; input: DetectionInput } {
  const probability = new Float32Array(width * height);
  const r = (degrees * Math.PI) / 180;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const dx = x - width / 2;
      const dy = y - height / 2;
      const along = dx * Math.cos(r) + dy * Math.sin(r);
      const across = -dx * Math.sin(r) + dy * Math.cos(r);
      const inLine = ((across % 24) + 24) % 24 < 8;
      const inWord = ((along % 60) + 60) % 60 < 48;
      if (inLine && inWord && Math.abs(along) < 200 && Math.abs(across) < 150) probability[y * width + x] = 0.9;
    }
  }
  return { probability, input: { tensor: new Float32Array(0), width, height, scaleX: 1, scaleY: 1 } };
}

const turnOf = (degrees: number) => {
  const { probability, input } = mapOfLines(degrees);
  return straighteningTurn(probability, input, 0.3);
};

describe("the page's skew", () => {
  it.each([
    [30, -30],
    [-25, 25],
    [65, -65],
    [-65, 65],
    [100, 80],
    [12.5, -12.5],
    [160, 20],
    [90, 90],
    [-85, 85],
  ])('lines running at %s° are turned level by %s°', (degrees, turn) => {
    expect(Math.abs(turnOf(degrees) - turn)).toBeLessThan(0.6);
  });

  it('finds the turn to the bit, fine steps summed and all, on a map dense enough to be sampled', () => {
    expect([30, 12.5, -85, 3.3].map(turnOf)).toEqual([-30.000000000000014, -12.499999999999995, 85, -3.300000000000001]);
  });

  it('leaves a page whose lines lie nearly level, or that shows no text', () => {
    expect(turnOf(1)).toBe(0);
    expect(turnOf(-1.5)).toBe(0);
    expect(straighteningTurn(new Float32Array(640 * 480), mapOfLines(0).input, 0.3)).toBe(0);
  });
});

describe("the page's quarter turn", () => {
  it('follows the direction most characters run in', () => {
    const down: Quad = [
      { x: 48, y: 0 },
      { x: 48, y: 200 },
      { x: 0, y: 200 },
      { x: 0, y: 0 },
    ];
    expect(pageRotation([{ quad: down, chars: 5 }, { quad: quad(0, 0, 32, 48), chars: 1 }])).toBe(270);
    expect(pageRotation([{ quad: quad(0, 0, 96, 48), chars: 3 }])).toBe(0);
    const leftwards: Quad = [
      { x: 96, y: 48 },
      { x: 0, y: 48 },
      { x: 0, y: 0 },
      { x: 96, y: 0 },
    ];
    expect(pageRotation([{ quad: leftwards, chars: 3 }])).toBe(180);
  });
});

describe('a page read one way round', () => {
  /** The classifier's verdicts as a fake classifier: each batch it was asked, and its probabilities. */
  const classifier = (flips: readonly number[]) => {
    const asked: number[][] = [];
    const classify = (batch: number[]) => {
      asked.push(batch);
      return Promise.resolve(batch.map((i) => flips[i]!));
    };
    return { asked, classify };
  };
  const vote = (lengths: number[], flips: number[], batchSize = 1) => upsideDownVote(lengths, batchSize, classifier(flips).classify);

  it('stands upside down when most of its text (by line length) does, whatever a short line says', async () => {
    const lengths = [400, 300, 60];
    expect(await vote(lengths, [0.99, 0.95, 0.1])).toBe(true);
    expect(await vote(lengths, [0.1, 0.2, 0.99])).toBe(false);
    // Only a confident verdict counts.
    expect(await vote(lengths, [0.8, 0.8, 0.8])).toBe(false);
  });

  it('asks about the longest lines first and stops once the rest could not change the verdict', async () => {
    const lengths = [50, 600, 40, 300, 30, 20];
    const upright = classifier([0.1, 0.1, 0.1, 0.1, 0.1, 0.1]);
    expect(await upsideDownVote(lengths, 1, upright.classify)).toBe(false);
    expect(upright.asked).toEqual([[1]]);
    const flipped = classifier([0.99, 0.99, 0.99, 0.99, 0.99, 0.99]);
    expect(await upsideDownVote(lengths, 2, flipped.classify)).toBe(true);
    expect(flipped.asked).toEqual([[1, 3]]);
  });

  it('gives the verdict every line would give, however the lines and verdicts fall', async () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let page = 0; page < 200; page++) {
      const lengths = Array.from({ length: 1 + Math.floor(random() * 12) }, () => 10 + Math.floor(random() * 500));
      const flips = lengths.map(() => (random() < 0.5 ? 0.99 : random()));
      const flippedLength = lengths.reduce((sum, length, i) => sum + (flips[i]! > 0.9 ? length : 0), 0);
      const total = lengths.reduce((sum, length) => sum + length, 0);
      expect(await vote(lengths, flips, 1 + (page % 3))).toBe(flippedLength > total / 2);
    }
  });

  it('reads a line from its other end by a half turn of its quad', () => {
    expect(turnedHalf(quad(0, 0, 400, 48))[0]).toEqual({ x: 400, y: 48 });
  });
});

describe("the part of a turned page that holds its text", () => {
  // A 1000 × 600 page (16 px of margin all round) whose text fills 200–800 × 100–500.
  const source = { width: 1000, height: 600 };
  const margin = 16;
  const text = [quad(200 + margin, 100 + margin, 800 + margin, 140 + margin), quad(200 + margin, 460 + margin, 500 + margin, 500 + margin)].flat();

  it("is outlined by each row's first and last text pixel of the detector's map, in page pixels", () => {
    // A 10 × 6 map of a page twice its size: text in rows 1–2, columns 3–6, and one pixel at (8, 4).
    const probability = new Float32Array(60);
    for (const y of [1, 2]) for (let x = 3; x <= 6; x++) probability[y * 10 + x] = 0.9;
    probability[4 * 10 + 8] = 0.5;
    const outline = textOutline(probability, { tensor: new Float32Array(0), width: 10, height: 6, scaleX: 2, scaleY: 2 }, 0.3);
    expect(boundingBox(outline)).toEqual({ x0: 6, y0: 2, x1: 18, y1: 10 });
    expect(outline).toHaveLength(12);
    expect(textOutline(new Float32Array(60), { tensor: new Float32Array(0), width: 10, height: 6, scaleX: 2, scaleY: 2 }, 0.3)).toEqual([]);
  });

  it('is the text turned with the page, with room all round, within the turned image', () => {
    const canvas = turnedSize(source, 90);
    // Turned a quarter clockwise, x = 600 − y and y = x: the text spans 100–500 across and 200–800 down.
    const room = 0.05 * 600 + margin;
    expect(textRegion(text, 90, { source, canvas, margin })).toEqual({
      x0: Math.floor(100 - room + margin),
      y0: Math.floor(200 - room + margin),
      x1: Math.ceil(500 + room + margin),
      y1: Math.ceil(800 + room + margin),
    });
    expect(textRegion([], 90, { source, canvas, margin })).toBeUndefined();
  });

  it('holds all the text turned by any angle, and stops at the image', () => {
    for (const turn of [30, 135, 200, 315]) {
      const canvas = turnedSize(source, turn);
      const region = textRegion(text, turn, { source, canvas, margin })!;
      const corners = text.map((p) => turnPoint({ x: p.x - margin, y: p.y - margin }, turn, source, canvas));
      for (const { x, y } of corners) {
        expect(x + margin).toBeGreaterThan(region.x0 + margin);
        expect(x + margin).toBeLessThan(region.x1 - margin);
        expect(y + margin).toBeGreaterThan(region.y0 + margin);
        expect(y + margin).toBeLessThan(region.y1 - margin);
      }
      // The text's turned box, and no more than its room beyond it.
      const xs = corners.map((p) => p.x);
      expect(region.x1 - region.x0).toBeLessThan(Math.max(...xs) - Math.min(...xs) + 2 * (0.05 * 1000 + 2 * margin));
    }
    const edge = quad(margin, margin, 1000 + margin, 600 + margin);
    expect(textRegion(edge, 0, { source, canvas: source, margin })).toEqual({ x0: 0, y0: 0, x1: 1000 + 2 * margin, y1: 600 + 2 * margin });
  });
});
