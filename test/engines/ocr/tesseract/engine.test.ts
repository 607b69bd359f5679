import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config/index.js';
import { createTesseractEngine, TesseractOcrEngine } from '../../../../src/engines/ocr/index.js';
import { traineddataProblem } from '../../../../src/engines/ocr/tesseract/traineddata.js';
import { createEngines } from '../../../../src/engines/registry.js';
import { readFixture } from '../../../../scripts/lib/ocr-fixtures.js';
import { itWithTools } from '../../../support/tools.js';
import { REPO_ROOT } from '../../../../scripts/lib/paths.js';

const NPM_ENG_TRAINEDDATA = join(REPO_ROOT, 'node_modules/@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz');

const DEBIAN_TESSDATA = '/usr/share/tesseract-ocr/5/tessdata';
const engines: TesseractOcrEngine[] = [];
afterAll(() => Promise.all(engines.map((engine) => engine.close())));

async function startedEngine(env: Record<string, string>): Promise<TesseractOcrEngine> {
  const engine = createTesseractEngine(loadConfig({ OCR_WORKERS: '1', ...env }).ocr);
  if (!(engine instanceof TesseractOcrEngine)) throw new Error(engine.reason);
  engines.push(engine);
  await engine.start();
  return engine;
}

/** The header line of report 1: 市第一人民医院病理诊断报告单. */
const headerLine = () => sharp(readFixture('report1.png')).extract({ left: 0, top: 0, width: 1000, height: 80 }).png().toBuffer();

describe('the tesseract.js OCR engine', () => {
  it('is unavailable with a reason, never a crash or a download, when a language has no traineddata', () => {
    const missing = createTesseractEngine(loadConfig({ OCR_LANGS: 'chi_sim+klingon' }).ocr);
    expect(missing).toEqual({ reason: 'traineddata for klingon not found from the npm package @tesseract.js-data/klingon' });
    const status = createEngines(loadConfig({ OCR_LANGS: 'klingon', OCR_TESSDATA_DIR: '/nonexistent' })).ocr.status();
    expect(status).toMatchObject({ state: 'unavailable', configured: true, reason: expect.stringContaining('OCR_TESSDATA_DIR') });
  });

  it('fails with the reason, and the process lives on, when a traineddata file is broken', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tessdata-test-'));
    try {
      const eng = gunzipSync(await readFile(NPM_ENG_TRAINEDDATA));
      await writeFile(join(dir, 'eng.traineddata'), eng.subarray(0, eng.length / 2));
      await writeFile(join(dir, 'noise.traineddata'), Buffer.alloc(4096, 7));
      // A legacy-only file: one entry (the unicharset at 196), no LSTM model.
      const legacy = Buffer.alloc(300, 0);
      legacy.writeInt32LE(24, 0);
      for (let entry = 0; entry < 24; entry++) legacy.writeBigInt64LE(entry === 0 ? 196n : -1n, 4 + 8 * entry);
      await writeFile(join(dir, 'osd.traineddata'), legacy);
      expect(await traineddataProblem(join(dir, 'eng.traineddata'))).toMatch(/truncated or corrupt/);
      expect(await traineddataProblem(join(dir, 'noise.traineddata'))).toMatch(/no traineddata header/);
      expect(await traineddataProblem(join(dir, 'osd.traineddata'))).toMatch(/no LSTM model/);
      const engine = createTesseractEngine(loadConfig({ OCR_LANGS: 'eng', OCR_TESSDATA_DIR: dir }).ocr);
      if (!(engine instanceof TesseractOcrEngine)) throw new Error(engine.reason);
      await engine.start();
      expect(engine.status()).toMatchObject({ state: 'failed', reason: expect.stringMatching(/^traineddata for eng .* truncated or corrupt/) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads a line with word boxes inside the image, and reports its traineddata', async () => {
    const engine = await startedEngine({});
    expect(engine.status()).toMatchObject({ state: 'ready', model: expect.stringMatching(/^chi_sim\.traineddata\.gz@[0-9a-f]{12}\+eng/) });
    const page = await engine.recognize(await headerLine(), new AbortController().signal);
    expect(page.text).toContain('人民医院');
    expect(page).toMatchObject({ width: 1000, height: 80, rotation: 0 });
    expect(page.words.length).toBeGreaterThan(4);
    for (const { box } of page.words) {
      expect(box.x0).toBeGreaterThanOrEqual(0);
      expect(box.x1).toBeLessThanOrEqual(1000);
      expect(box.y1).toBeLessThanOrEqual(80);
    }
  }, 60_000);

  it('stops a cancelled page at once', async () => {
    const engine = await startedEngine({});
    const controller = new AbortController();
    const reading = engine.recognize(readFixture('report1.png'), controller.signal);
    setTimeout(() => controller.abort(new Error('client went away')), 50);
    const started = Date.now();
    await expect(reading).rejects.toThrow('client went away');
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await engine.recognize(await headerLine(), new AbortController().signal)).text).toContain('人民医院');
  }, 60_000);

  itWithTools(
    'reads Debian tessdata from OCR_TESSDATA_DIR',
    existsSync(`${DEBIAN_TESSDATA}/chi_sim.traineddata`) ? null : 'Debian tessdata not installed (apt-get install tesseract-ocr-chi-sim)',
    async () => {
      const engine = await startedEngine({ OCR_TESSDATA_DIR: DEBIAN_TESSDATA });
      expect(engine.status().model).toMatch(/^chi_sim\.traineddata@/);
      expect((await engine.recognize(await headerLine(), new AbortController().signal)).text).toContain('医院');
    },
    60_000,
  );

  it('checks a configured folder against its SHA256SUMS: verified when it matches, failed when not', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tessdata-sums-'));
    try {
      const file = join(dir, 'eng.traineddata');
      await writeFile(file, gunzipSync(await readFile(NPM_ENG_TRAINEDDATA)));
      const sha256 = createHash('sha256').update(await readFile(file)).digest('hex');
      const engineWith = (sums: string) =>
        writeFile(join(dir, 'SHA256SUMS'), sums).then(() => {
          const { ocr } = createEngines(loadConfig({ OCR_ENGINE: 'tesseract', OCR_WORKERS: '1', OCR_LANGS: 'eng', OCR_TESSDATA_DIR: dir }));
          engines.push(ocr as TesseractOcrEngine);
          return ocr.start().then(() => ocr.status());
        });
      expect(await engineWith(`${'0'.repeat(64)}  eng.traineddata\n`)).toMatchObject({
        state: 'failed',
        reason: expect.stringContaining('MODELS_VERIFY=false'),
      });
      expect(await engineWith(`${sha256}  eng.traineddata\n`)).toMatchObject({ state: 'ready', verified: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
