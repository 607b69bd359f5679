/**
 * OCR at any angle, per angle: the real blood-count photos and rendered pages (the OCR fixtures'
 * upright pages, the de-identification fixtures' image pages) turned every 15° on a desk,
 * photographed tilted (30° and 45°, each edge away), tilted and then turned, and turned under
 * uneven light, each read through case-ocr one at a time. For each: the share of the known
 * characters read (char recall: of the whole text where it is known, else of the identifiers
 * and clinical strings the ground truth gives), CER where the whole text is known, and how many
 * identifiers were read. Prints figures only, never the recognised text (the photos show real
 * names).
 *
 *   npm run eval:ocr-angles [-- --only photos] [-- --angles 0,45,135] [-- --tilts 30,45] [-- --no-mixed] [-- --averaging]
 *   (`--angles=` alone: no turns; `--tilts=`: no tilts; `--averaging`: tilted pages drawn with
 *   each pixel the mean of the page it sees, softer, as a camera's, instead of one sample)
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { deidGroundTruth, DEID_FIXTURES } from './lib/deid-fixtures.js';
import { characterErrorRate, pct, startOcrEvalGateway } from './lib/eval-gateway.js';
import { groundTruth, OCR_FIXTURES } from './lib/ocr-fixtures.js';
import { fixturePath } from './lib/paths.js';
import { photoTruth } from './lib/photos.js';
import { shadedPage, thenDistorted, tiltedPage, turnedPage, type DistortedPage } from './lib/redaction.js';

const TILT_SIDES = ['top', 'bottom', 'left', 'right'] as const;
/** Turns a tilted page is also read at, and a shaded one. */
const MIXED_TURNS = [45, 135, 225, 315];
/** The darkest share of full light on the shaded side of an unevenly lit page. */
const SHADE = 0.35;
const PHOTOS = ['np2016_bloodtestreport2.jpg', 'np2016_bloodtestreport1.jpg'];

interface Source {
  name: string;
  /** Upright as a viewer shows it (EXIF applied). */
  png: Buffer;
  /** The whole text, where known. */
  text?: string;
  /** Strings that must be read somewhere: identifiers first. */
  identifiers: string[];
  other: string[];
}

async function sources(only: string | undefined): Promise<Source[]> {
  const upright = async (path: string) => sharp(await readFile(path)).rotate().png().toBuffer();
  const ocr = Object.entries(groundTruth())
    .filter(([file]) => /^report\d\.png$/.test(file))
    .map(async ([file, truth]): Promise<Source> => ({ name: file, png: await upright(join(OCR_FIXTURES, file)), text: truth.text, identifiers: [truth.patient_info.name!], other: [] }));
  const deid = Object.entries(deidGroundTruth())
    .filter(([file, truth]) => !file.endsWith('.pdf') && !file.endsWith('.tiff') && truth.turn === undefined)
    .map(async ([file, truth]): Promise<Source> => ({ name: file, png: await upright(join(DEID_FIXTURES, file)), identifiers: truth.personal, other: truth.clinical }));
  const photos = PHOTOS.map(async (file): Promise<Source> => {
    const truth = photoTruth()[file]!;
    // Its truth says how far clockwise the photo must turn to stand upright.
    const png = await sharp(await readFile(fixturePath('photos', file)))
      .rotate(truth.rotation ?? 0)
      .png()
      .toBuffer();
    return { name: file, png, identifiers: truth.personal ?? [], other: truth.clinical ?? [] };
  });
  const all = await Promise.all([...photos, ...ocr, ...deid]);
  if (only === 'photos') return all.filter((item) => PHOTOS.includes(item.name));
  return only ? all.filter((item) => only.split(',').some((part) => item.name.includes(part))) : all;
}

const comparable = (text: string) => [...text.normalize('NFKC').replace(/\s+/g, '')];

/** Fewest edits that make `needle` a substring of `text` (Sellers' approximate matching). */
function editsToFind(needle: readonly string[], text: readonly string[]): number {
  let previous = new Array<number>(text.length + 1).fill(0);
  for (let i = 1; i <= needle.length; i++) {
    const current = [i];
    for (let j = 1; j <= text.length; j++) current[j] = Math.min(previous[j - 1]! + (needle[i - 1] === text[j - 1] ? 0 : 1), previous[j]! + 1, current[j - 1]! + 1);
    previous = current;
  }
  return Math.min(...previous);
}

/** Characters of the reference read, in order: its longest common subsequence with the reading over its length. */
function recallOf(reference: readonly string[], text: readonly string[]): number {
  let previous = new Array<number>(text.length + 1).fill(0);
  for (let i = 1; i <= reference.length; i++) {
    const current = [0];
    for (let j = 1; j <= text.length; j++) current[j] = reference[i - 1] === text[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!);
    previous = current;
  }
  return reference.length ? previous[text.length]! / reference.length : 1;
}

interface Scores {
  recall: number;
  cer?: number;
  idsRead: number;
  /** Each identifier not read: its place in the list and the edits it was read with (never its text). */
  idsMissed: string[];
}

function score(source: Source, reading: string): Scores {
  const text = comparable(reading);
  const missed = source.identifiers.flatMap((id, i) => (text.join('').includes(comparable(id).join('')) ? [] : [`#${i + 1} ${editsToFind(comparable(id), text)}/${comparable(id).length}`]));
  const idsRead = source.identifiers.length - missed.length;
  if (source.text !== undefined) return { recall: recallOf(comparable(source.text), text), cer: characterErrorRate(reading, source.text), idsRead, idsMissed: missed };
  const known = [...source.identifiers, ...source.other].map(comparable);
  const length = known.reduce((sum, chars) => sum + chars.length, 0);
  const read = known.reduce((sum, chars) => sum + Math.max(0, chars.length - editsToFind(chars, text)), 0);
  return { recall: length ? read / length : 1, idsRead, idsMissed: missed };
}

type Distortion = [label: string, make: (png: Buffer) => Promise<DistortedPage>];

function distortions(angles: number[], tilts: number[], mixed: boolean, averaging: boolean): Distortion[] {
  const turned = (angle: number) => (png: Buffer) => turnedPage(png, angle);
  return [
    ...angles.map((angle): Distortion => [`turned ${angle}°`, turned(angle)]),
    ...tilts.flatMap((tilt) => TILT_SIDES.map((side): Distortion => [`tilted ${tilt}° ${side}`, (png) => tiltedPage(png, side, tilt, { averaging })])),
    ...(mixed
      ? [
          ...MIXED_TURNS.map((angle): Distortion => [`tilted 30° top, turned ${angle}°`, async (png) => thenDistorted(await tiltedPage(png, 'top', 30, { averaging }), turned(angle))]),
          ...MIXED_TURNS.map((angle): Distortion => [`shaded, turned ${angle}°`, async (png) => thenDistorted(await shadedPage(await turnedPage(png, 0), angle, SHADE), turned(angle))]),
        ]
      : []),
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: 'string' }, angles: { type: 'string' }, tilts: { type: 'string', default: '30,45' }, 'no-mixed': { type: 'boolean', default: false }, averaging: { type: 'boolean', default: false } } });
  const angles = values.angles !== undefined ? values.angles.split(',').filter(Boolean).map(Number) : Array.from({ length: 24 }, (_, i) => i * 15);
  const tilts = values.tilts ? values.tilts.split(',').filter(Boolean).map(Number) : [];
  const selected = await sources(values.only);
  const cases = distortions(angles, tilts, !values['no-mixed'], values.averaging);
  const gateway = await startOcrEvalGateway({ OCR_WORKERS: '1' });
  const dir = await mkdtemp(join(tmpdir(), 'eval-ocr-angles-'));
  let below = 0;
  let missed = 0;
  let total = 0;
  try {
    console.log(`case-ocr, OCR ${gateway.model}; ${selected.length} pages × ${cases.length} distortions, one at a time\n`);
    console.log('page'.padEnd(30), 'distortion'.padEnd(28), 'recall'.padStart(7), 'CER'.padStart(7), 'ids'.padStart(6), 'ms'.padStart(7), ' identifiers missed (#, edits/length)');
    for (const item of selected) {
      for (const [label, make] of cases) {
        const path = join(dir, 'page.png');
        await writeFile(path, (await make(item.png)).png);
        const { body, ms } = await gateway.caseOcr([path]);
        const scores = score(item, body.ocr_results.map((result) => result.ocr_result).join('\n'));
        total++;
        if (scores.recall < 0.9) below++;
        if (scores.idsRead < item.identifiers.length) missed++;
        console.log(
          item.name.padEnd(30),
          label.padEnd(28),
          scores.recall.toFixed(2).padStart(7),
          (scores.cer === undefined ? '' : pct(scores.cer)).padStart(7),
          `${scores.idsRead}/${item.identifiers.length}`.padStart(6),
          ms.toFixed(0).padStart(7),
          scores.idsMissed.length ? ` missed ${scores.idsMissed.join(', ')}` : '',
        );
      }
    }
  } finally {
    await gateway.close();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`\npages read: ${total}; char recall under 0.90 on ${below}; an identifier missed on ${missed}`);
  process.exitCode = below || missed ? 1 : 0;
}

await main();
