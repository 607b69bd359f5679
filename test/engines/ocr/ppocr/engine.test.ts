/**
 * The PP-OCR engine on its real models (from npm) in worker threads: real photos upright, turned,
 * tilted, seen at an angle and unevenly lit; rendered reports; and how it fails.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETECTION_DEFAULTS } from '../../../../src/engines/ocr/ppocr/detect.js';
import { PpOcrEngine, type PpOcrSettings } from '../../../../src/engines/ocr/ppocr/engine.js';
import { homography, project } from '../../../../src/engines/ocr/homography.js';
import { rectQuad } from '../../../../src/engines/ocr/ppocr/geometry.js';
import type { Quad } from '../../../../src/engines/ocr/plane.js';
import { packagedModelFiles, type PpOcrModelFiles } from '../../../../src/engines/ocr/ppocr/models.js';
import { PREPARED_MANIFEST, type PreparedManifest } from '../../../../src/engines/ocr/ppocr/prepared.js';
import { prepareOcrModels } from '../../../../src/engines/ocr/ppocr/prepare/prepare.js';
import { loadConfig } from '../../../../src/config/index.js';
import { sha256OfFile } from '../../../../src/platform/models/checksums.js';
import { exactInt8DotProducts } from '../../../../src/platform/cpu.js';
import { characterErrorRate } from '../../../../scripts/lib/eval-gateway.js';
import { groundTruth, readFixture } from '../../../../scripts/lib/ocr-fixtures.js';
import { fixturePath } from '../../../../scripts/lib/paths.js';
import { photoTruth } from '../../../../scripts/lib/photos.js';

const SETTINGS: PpOcrSettings = {
  workers: 1,
  threads: 2,
  device: 'cpu',
  precision: 'int8',
  detection: DETECTION_DEFAULTS,
  batchSize: 6,
  startTimeoutMs: 60_000,
};
/** The models as npm install prepared them. */
const PREPARED = loadConfig({}).ocr.ppocrDir;
const never = () => new AbortController().signal;
const compact = (text: string) => text.replace(/\s+/g, '');
const IDENTIFIERS = photoTruth()['np2016_bloodtestreport2.jpg']!.personal!;

/** The photo as if taken at an angle: its corners pulled onto a trapezoid (a perspective warp). */
async function seenAtAnAngle(bytes: Buffer): Promise<Buffer> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const to: Quad = [
    { x: width * 0.08, y: height * 0.04 },
    { x: width * 0.95, y: 0 },
    { x: width, y: height },
    { x: 0, y: height * 0.93 },
  ];
  // For each output pixel, where it comes from in the photo.
  const fromOutput = homography(to, rectQuad(width, height));
  const out = Buffer.alloc(width * height * 3, 255);
  const at = (x: number, y: number, c: number) => data[(y * width + x) * 3 + c]!;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = project(fromOutput, { x, y });
      if (p.x < 0 || p.y < 0 || p.x >= width - 1 || p.y >= height - 1) continue;
      // Bilinear, as a camera's optics blend neighbouring points.
      const [x0, y0] = [Math.floor(p.x), Math.floor(p.y)];
      const [fx, fy] = [p.x - x0, p.y - y0];
      for (let c = 0; c < 3; c++) {
        const top = at(x0, y0, c) * (1 - fx) + at(x0 + 1, y0, c) * fx;
        const bottom = at(x0, y0 + 1, c) * (1 - fx) + at(x0 + 1, y0 + 1, c) * fx;
        out[(y * width + x) * 3 + c] = Math.round(top * (1 - fy) + bottom * fy);
      }
    }
  }
  return sharp(out, { raw: { width, height, channels: 3 } }).jpeg().toBuffer();
}

/** Light falling off across the page: dark on the left, as a lamp on one side gives. */
async function unevenlyLit(bytes: Buffer): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(bytes).metadata();
  const gradient = Buffer.from(
    `<svg width="${width}" height="${height}"><linearGradient id="g"><stop offset="0" stop-color="#555"/><stop offset="1" stop-color="#fff"/></linearGradient><rect width="100%" height="100%" fill="url(#g)"/></svg>`,
  );
  return sharp(bytes).composite([{ input: gradient, blend: 'multiply' }]).jpeg().toBuffer();
}

describe('the PP-OCR engine on its real models', () => {
  let engine: PpOcrEngine;
  let photo: Buffer;

  beforeAll(async () => {
    engine = new PpOcrEngine(SETTINGS, PREPARED);
    photo = await readFile(fixturePath('photos', 'np2016_bloodtestreport2.jpg'));
  });
  afterAll(() => engine.close());

  it('loads in a worker thread: starting → ready, with the models named by their hashes', async () => {
    const started = engine.start();
    expect(engine.status().state).toBe('starting');
    await started;
    expect(engine.status()).toMatchObject({ state: 'ready', model: expect.stringMatching(/^PP-OCRv4@[0-9a-f]{12}$/), device: expect.stringMatching(exactInt8DotProducts() ? /^cpu: 1 PP-OCR workers × 2 threads, recogniser int8-127$/ : /^cpu: 1 PP-OCR workers × 2 threads, recogniser int8-63$/) });
  });

  it.each(['report1.png', 'report2.png', 'report3.png'])('reads the rendered %s at CER ≤ 1%%', async (file) => {
    const page = await engine.recognize(readFixture(file), never());
    expect(characterErrorRate(page.text, groundTruth()[file]!.text)).toBeLessThanOrEqual(0.01);
    expect(page.rotation).toBe(0);
    expect(page.confidence).toBeGreaterThan(90);
  });

  it('reads a stage of two I\'s printed tight, which CTC decoding reads as one, on a full A4 page at 300 dpi', async () => {
    const page = await engine.recognize(await readFile(fixturePath('ocr', 'a4', 'zh-pathology-300dpi.jpg')), never());
    expect(compact(page.text)).toContain('病理分期：II期');
  });

  it.each([
    ['report1-rot90.jpg', 270],
    ['report1-rot180.jpg', 180],
    ['report1-rot270.jpg', 90],
  ] as const)('finds the quarter turn of %s (%i) and reads it', async (file, rotation) => {
    const page = await engine.recognize(readFixture(file), never());
    expect(page.rotation).toBe(rotation);
    expect(characterErrorRate(page.text, groundTruth()[file]!.text)).toBeLessThanOrEqual(0.03);
  });

  it('reads every identifier on the real phone photo, each character boxed inside its line', async () => {
    const page = await engine.recognize(photo, never());
    for (const identifier of IDENTIFIERS) expect(compact(page.text)).toContain(identifier);
    const name = page.words.find((word) => word.text.includes('孟丁'))!;
    const at = [...name.text].indexOf('孟');
    const [first, second] = [name.chars![at]!, name.chars![at + 1]!];
    expect(first.x1).toBeLessThanOrEqual(second.x0 + 2);
    expect(first.x0).toBeGreaterThanOrEqual(name.box.x0);
    expect(second.x1).toBeLessThanOrEqual(name.box.x1);
    // Two characters of a ~1280 px photo: far narrower than the whole line.
    expect(second.x1 - first.x0).toBeLessThan(120);
  });

  it('reads the photo taken turned a quarter, and says how it lies', async () => {
    const page = await engine.recognize(await readFile(fixturePath('photos', 'np2016_bloodtestreport1.jpg')), never());
    // A quarter turn, and the 2° the phone was held askew.
    expect(Math.abs(page.rotation - 270)).toBeLessThan(5);
    for (const identifier of IDENTIFIERS) expect(compact(page.text)).toContain(identifier);
  });

  it.each([
    ['tilted 6°', (bytes: Buffer) => sharp(bytes).rotate(6, { background: '#ffffff' }).jpeg().toBuffer()],
    ['seen at an angle', seenAtAnAngle],
    ['unevenly lit', unevenlyLit],
  ] as const)('reads the identifiers on the photo %s', async (_how, distort) => {
    const page = await engine.recognize(await distort(photo), never());
    for (const identifier of IDENTIFIERS) expect(compact(page.text)).toContain(identifier);
  }, 30_000);

  it('answers a cancelled page at once, not once it is read, and reads the next one', async () => {
    // The budget, on this machine and under its load now: the photo read in full.
    let startedAt = performance.now();
    await engine.recognize(photo, never());
    const fullReadMs = performance.now() - startedAt;

    const client = new AbortController();
    startedAt = performance.now();
    const reading = engine.recognize(photo, client.signal);
    setTimeout(() => client.abort(new Error('client went away')), fullReadMs / 10);
    await expect(reading).rejects.toThrow('client went away');
    // Cancelled a tenth of the way in, answered long before the reading would have ended.
    expect(performance.now() - startedAt, `answered, of a full read of ${Math.round(fullReadMs)} ms`).toBeLessThan(fullReadMs / 2);
    expect(compact((await engine.recognize(readFixture('report2.png'), never())).text)).toContain('李秀英');
  });

  // A worker thread terminated while onnxruntime runs aborts the whole process: cancelled pages
  // must stop between model calls, whatever stage they are in.
  it('survives pages cancelled at every stage of their reading', async () => {
    for (const afterMs of [1, 40, 120, 250, 400, 700, 1000, 1500]) {
      const client = new AbortController();
      const reading = engine.recognize(photo, client.signal);
      setTimeout(() => client.abort(new Error('client went away')), afterMs);
      await reading.catch(() => undefined);
    }
    expect(compact((await engine.recognize(readFixture('report2.png'), never())).text)).toContain('李秀英');
  });
});

describe('preparing the PP-OCR models, and the engine without usable ones', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ppocr-models-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** The packaged source files, copied where a test may change them. */
  const copiedSources = async (name: string): Promise<PpOcrModelFiles> => {
    const files = packagedModelFiles();
    const copies = Object.fromEntries(Object.keys(files).map((key) => [key, join(dir, `${name}-${key}.bin`)])) as unknown as PpOcrModelFiles;
    await Promise.all(Object.keys(files).map((key) => copyFile(files[key as keyof PpOcrModelFiles], copies[key as keyof PpOcrModelFiles])));
    return copies;
  };
  const manifestIn = async (prepared: string): Promise<PreparedManifest> => JSON.parse(await readFile(join(prepared, PREPARED_MANIFEST), 'utf8')) as PreparedManifest;

  it('prepares every file, each listed with the sha256 of its bytes, the same bytes each time', async () => {
    const out = join(dir, 'prepared');
    const manifest = await prepareOcrModels(packagedModelFiles(), out);
    const { files } = manifest;
    expect(Object.keys(files.recogniser).sort()).toEqual(['fp32', 'int8-127', 'int8-63']);
    const prepared = [files.detector, files.classifier, files.alphabet, ...Object.values(files.recogniser)];
    for (const file of prepared) expect(await sha256OfFile(join(out, file!.file)), file!.file).toBe(file!.sha256);
    // What npm run build prepared, from the same files.
    expect(await manifestIn(PREPARED)).toEqual(manifest);
    await writeFile(join(out, files.classifier.file), 'changed');
    expect(await prepareOcrModels(packagedModelFiles(), out)).toEqual(manifest);
    expect(await sha256OfFile(join(out, files.classifier.file))).toBe(files.classifier.sha256);
  }, 60_000);

  it('refuses to prepare a file that is no ONNX model, naming it, and leaves what was prepared before', async () => {
    const sources = { ...(await copiedSources('garbage')), detector: join(dir, 'not-a-model.onnx') };
    await writeFile(sources.detector, 'not an onnx model');
    const out = join(dir, 'kept');
    await prepareOcrModels(packagedModelFiles(), out);
    const before = await readFile(join(out, PREPARED_MANIFEST), 'utf8');
    await expect(prepareOcrModels(sources, out)).rejects.toThrow(/not-a-model\.onnx could not be prepared/);
    expect(await readFile(join(out, PREPARED_MANIFEST), 'utf8')).toBe(before);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  }, 60_000);

  it('is unavailable when the models were never prepared, saying how to prepare them', async () => {
    const engine = new PpOcrEngine(SETTINGS, join(dir, 'never-prepared'));
    await engine.start();
    expect(engine.status()).toMatchObject({ state: 'unavailable', reason: expect.stringContaining('mdt-gateway models prepare-ocr') });
    await expect(engine.recognize(readFixture('report1.png'), never())).rejects.toMatchObject({ kind: 'engine_unavailable' });
    await engine.close();
  });

  it('runs a recogniser prepared from a file it has no int8 calibration for in fp32, and says so', async () => {
    const sources = await copiedSources('uncalibrated');
    // An unknown protobuf field: the same model to onnxruntime, another file to its hash.
    await writeFile(sources.recogniser, Buffer.concat([await readFile(sources.recogniser), Buffer.from([0xf8, 0x3e, 0x01])]));
    const out = join(dir, 'uncalibrated');
    expect(Object.keys((await prepareOcrModels(sources, out)).files.recogniser)).toEqual(['fp32']);
    const engine = new PpOcrEngine(SETTINGS, out);
    await engine.start();
    expect(engine.status()).toMatchObject({ state: 'ready', device: expect.stringMatching(/, recogniser fp32$/) });
    const page = await engine.recognize(readFixture('report2.png'), never());
    expect(characterErrorRate(page.text, groundTruth()['report2.png']!.text)).toBeLessThanOrEqual(0.01);
    await engine.close();
  }, 60_000);

  it('fails, naming the file, when a prepared file is not the one prepared, and loads nothing', async () => {
    const out = join(dir, 'altered');
    const manifest = await prepareOcrModels(packagedModelFiles(), out);
    await writeFile(join(out, manifest.files.detector.file), Buffer.from('not an onnx model'));
    const engine = new PpOcrEngine(SETTINGS, out);
    await engine.start();
    expect(engine.status()).toMatchObject({ state: 'failed', reason: expect.stringMatching(/det\.onnx has sha256 [0-9a-f]{12}…, not the [0-9a-f]{12}… it was prepared with/) });
    await engine.close();
  }, 60_000);

  it('fails with the reason when a prepared file vouched for cannot be loaded, and the process lives on', async () => {
    const out = join(dir, 'unloadable');
    const manifest = await prepareOcrModels(packagedModelFiles(), out);
    const garbage = Buffer.from('not an onnx model');
    await writeFile(join(out, manifest.files.detector.file), garbage);
    const vouched = { ...manifest, files: { ...manifest.files, detector: { ...manifest.files.detector, sha256: createHash('sha256').update(garbage).digest('hex') } } };
    await writeFile(join(out, PREPARED_MANIFEST), JSON.stringify(vouched));
    const engine = new PpOcrEngine(SETTINGS, out);
    await engine.start();
    expect(engine.status()).toMatchObject({ state: 'failed', reason: expect.stringMatching(/^the PP-OCR models could not be loaded: /) });
    await engine.close();
  }, 60_000);

  // Worker threads left loading models after their engine closed abort the process that exits.
  it('closed while it loads, stays closed and leaves no worker thread loading', async () => {
    for (const afterMs of [0, 30, 80]) {
      const engine = new PpOcrEngine(SETTINGS, PREPARED);
      const loading = engine.start();
      await new Promise((resolve) => setTimeout(resolve, afterMs));
      await engine.close();
      await loading; // the load it cut short is over: nothing is left to change the state
      expect(engine.status().state).toBe('unavailable');
    }
  });

  it.skipIf(existsSync(join(dirname(createRequire(import.meta.url).resolve('onnxruntime-node')), '../bin/napi-v6/linux/x64/libonnxruntime_providers_cuda.so')))(
    'with OCR_DEVICE=cuda and no CUDA execution provider installed, fails saying so rather than reading on the CPU',
    async () => {
      const engine = new PpOcrEngine({ ...SETTINGS, device: 'cuda' }, PREPARED);
      await engine.start();
      expect(engine.status()).toMatchObject({ state: 'failed', device: expect.stringMatching(/^cuda: /), reason: expect.stringContaining("CUDA execution provider could not be used") });
      await engine.close();
    },
  );
});
