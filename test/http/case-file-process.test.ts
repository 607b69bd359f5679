/**
 * case-file-process (AI-4) through the HTTP interface: the real OCR engine (PP-OCR, audited with
 * tesseract.js) on the project's rendered reports and the real phone photos, the produced files
 * downloaded from their signed URLs and read back through case-ocr and by tesseract.js alone; and
 * the self-audit, with an OCR engine that keeps reading a name outside the boxes, withholding the file.
 */
import sharp from 'sharp';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseFileProcessResponse } from '../../src/contract/case-files.js';
import type { OcrEngine, OcrPage, OcrWord, PagePerspective, RecognizeOptions } from '../../src/engines/types.js';
import { startFileServer, type FileServer, fileReference, type FileReferenceBody } from '../../scripts/lib/file-server.js';
import { OCR_START_WITHIN_MS, startGateway, startOcrGateway, type TestGateway, postFiles } from '../../scripts/lib/gateway.js';
import { DEID_FIXTURES, deidGroundTruth } from '../../scripts/lib/deid-fixtures.js';
import { readFixture, toBmp } from '../../scripts/lib/ocr-fixtures.js';
import { ScriptedLlmEngine } from '../support/test-engines.js';
import { enginesWith } from '../../scripts/lib/stand-in-engines.js';
import { fixturePath } from '../../scripts/lib/paths.js';
import { photoTruth } from '../../scripts/lib/photos.js';
import { coverage, placed, thenDistorted, tiltedPage, turnedPage, uncovered } from '../../scripts/lib/redaction.js';
import { loadConfig } from '../../src/config/index.js';
import { createTesseractEngine, TesseractOcrEngine } from '../../src/engines/ocr/index.js';

const compact = (text: string) => text.replace(/\s/g, '');

const PATH = '/ai/v1/case-file-process';

let files: FileServer;
const served = new Map<string, Buffer>();

const file = (upload_file_id: number, name: string) => fileReference(files, upload_file_id, name);

const post = (target: TestGateway, fileList: FileReferenceBody[]) => postFiles(target, PATH, 'req-deid-1', fileList);

/** A produced file, fetched through its signed URL like a client would. */
async function download(target: TestGateway, url: string): Promise<{ type: string; bytes: Buffer }> {
  const response = await target.app.inject({ method: 'GET', url: new URL(url).pathname });
  expect(response.statusCode).toBe(200);
  return { type: String(response.headers['content-type']), bytes: response.rawPayload };
}

/** What case-ocr reads in a file, as a client would check it. */
async function readBack(target: TestGateway, name: string, bytes: Buffer): Promise<string> {
  served.set(name, bytes);
  const response = await target.app.inject({ method: 'POST', url: '/ai/v1/case-ocr', payload: { request_id: 'read-back', files: [file(1, name)] } });
  expect(response.statusCode).toBe(200);
  return (response.json() as { ocr_results: Array<{ ocr_result: string }> }).ocr_results[0]!.ocr_result;
}

beforeAll(async () => {
  files = await startFileServer((request, response) => {
    const name = (request.url ?? '/').slice(1);
    const bytes = served.get(name);
    if (bytes) return void response.end(bytes);
    try {
      response.end(readFixture(name));
    } catch {
      response.writeHead(404).end();
    }
  });
  // A phone photo: EXIF turned 90° (the pixels are stored sideways), with a camera comment and GPS.
  const sideways = await sharp(readFixture('report1.png')).rotate(-90).jpeg().toBuffer();
  served.set(
    'photo.jpg',
    await sharp(sideways)
      .withMetadata({ orientation: 6 })
      .withExifMerge({ IFD0: { ImageDescription: 'ward 5 bed 12', Make: 'PhoneCam' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '31/1 18/1 0/1' } })
      .jpeg()
      .toBuffer(),
  );
});

afterAll(async () => {
  await files.close();
});

describe('case-file-process with the real OCR engine', () => {
  let gateway: TestGateway;
  /** tesseract.js on its own: the second reader of the audit, here reading what a client receives. */
  let independentReader: TesseractOcrEngine;

  beforeAll(async () => {
    gateway = await startOcrGateway();
    const created = createTesseractEngine(loadConfig({ OCR_WORKERS: '1' }).ocr);
    if (!(created instanceof TesseractOcrEngine)) throw new Error(created.reason);
    independentReader = created;
    await independentReader.start();
  }, OCR_START_WITHIN_MS + 10_000);

  afterAll(async () => {
    await gateway.close();
    await independentReader.close();
  });

  it('redacts names and hospital numbers in an image and a text PDF, in request order, keeping the clinical text', async () => {
    const { status, json } = await post(gateway, [file(7, 'report1-text.pdf'), file(3, 'report1.png')]);
    expect(status).toBe(200);
    const body = caseFileProcessResponse.parse(json);
    expect(body.results.map((result) => result.upload_file_id)).toEqual([7, 3]);
    for (const result of body.results) {
      expect(result.pages).toBe(1);
      expect(result.redactions).toBeGreaterThanOrEqual(2);
      // Per page, by kind: the name and the hospital number, summing to the total.
      expect(result.page_redactions).toHaveLength(1);
      expect(result.page_redactions[0]).toMatchObject({ name: expect.any(Number), hospital_id: expect.any(Number) });
      expect(Object.values(result.page_redactions[0]!).reduce((a, b) => a + b, 0)).toBe(result.redactions);
      expect(result.desensitized_url).toMatch(/\/files\/[\w-]+\.[\w-]+$/);
    }
    const pdf = await download(gateway, body.results[0]!.desensitized_url);
    const png = await download(gateway, body.results[1]!.desensitized_url);
    expect(pdf.type).toBe('application/pdf');
    expect(png.type).toBe('image/png');
    for (const [name, produced] of [['out.pdf', pdf.bytes], ['out.png', png.bytes]] as const) {
      const text = (await readBack(gateway, name, produced)).replace(/\s/g, '');
      expect(text).not.toContain('张三');
      expect(text).not.toContain('20240315');
      for (const clinical of ['市第一人民医院', '临床诊断', '白细胞计数', '血红蛋白']) expect(text).toContain(clinical);
    }
  }, 180_000);

  it('produces an image-only PDF: no text layer, no document info', async () => {
    const { json } = await post(gateway, [file(1, 'report1-text.pdf')]);
    const { bytes } = await download(gateway, caseFileProcessResponse.parse(json).results[0]!.desensitized_url);
    const document = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
    try {
      expect(document.numPages).toBe(1);
      const page = await document.getPage(1);
      expect((await page.getTextContent()).items).toHaveLength(0);
      const { info } = await document.getMetadata();
      expect(Object.keys(info as object).filter((key) => !['PDFFormatVersion', 'Language', 'EncryptFilterName', 'IsLinearized', 'IsAcroFormPresent', 'IsXFAPresent', 'IsCollectionPresent', 'IsSignaturesPresent'].includes(key))).toEqual([]);
      expect(await document.getAttachments()).toBeNull();
      expect(await document.getJSActions()).toBeNull();
      // The original page size in points is kept.
      const original = await getDocument({ data: new Uint8Array(readFixture('report1-text.pdf')), verbosity: 0 }).promise;
      expect(page.view).toEqual((await original.getPage(1)).view);
      await original.destroy();
    } finally {
      await document.destroy();
    }
  }, 120_000);

  it('strips every metadata block from a photo and keeps it upright as it was shown', async () => {
    const { status, json } = await post(gateway, [file(1, 'photo.jpg')]);
    expect(status).toBe(200);
    const { type, bytes } = await download(gateway, caseFileProcessResponse.parse(json).results[0]!.desensitized_url);
    expect(type).toBe('image/jpeg');
    const metadata = await sharp(bytes).metadata();
    expect(metadata.format).toBe('jpeg');
    for (const block of ['exif', 'xmp', 'icc', 'iptc', 'orientation', 'comments'] as const) expect(metadata[block], block).toBeUndefined();
    const original = await sharp(readFixture('report1.png')).metadata();
    expect([metadata.width, metadata.height]).toEqual([original.width, original.height]);
    expect(bytes.includes(Buffer.from('ward 5'))).toBe(false);
    expect(bytes.includes(Buffer.from('PhoneCam'))).toBe(false);
  }, 120_000);

  it('keeps every page of a multi-page TIFF, and turns a BMP (which it cannot write) into PNG', async () => {
    served.set('scan.bmp', await toBmp(readFixture('report2.png')));
    const { status, json } = await post(gateway, [file(1, 'reports-2page.tiff'), file(2, 'scan.bmp')]);
    expect(status).toBe(200);
    const [tiff, bmp] = caseFileProcessResponse.parse(json).results;
    expect(tiff!.pages).toBe(2);
    const produced = await download(gateway, tiff!.desensitized_url);
    expect(produced.type).toBe('image/tiff');
    expect((await sharp(produced.bytes).metadata()).pages).toBe(2);
    expect((await download(gateway, bmp!.desensitized_url)).type).toBe('image/png');
  }, 180_000);

  it.each(['np2016_bloodtestreport2.jpg', 'np2016_bloodtestreport1.jpg'])(
    'de-identifies the real phone photo %s: no identifier readable by either reader, the clinical content kept',
    async (photo) => {
      const truth = photoTruth()[photo]!;
      served.set(photo, await readFile(fixturePath('photos', photo)));
      const { status, json } = await post(gateway, [file(9, photo)]);
      expect(status).toBe(200);
      const produced = await download(gateway, caseFileProcessResponse.parse(json).results[0]!.desensitized_url);
      const byFirstReader = compact(await readBack(gateway, `out-${photo}`, produced.bytes));
      const byIndependentReader = compact((await independentReader.recognize(produced.bytes, new AbortController().signal)).text);
      for (const identifier of truth.personal!) {
        expect(byFirstReader, 'an identifier is still readable').not.toContain(identifier);
        expect(byIndependentReader, 'an identifier is still readable').not.toContain(identifier);
      }
      for (const kept of ['白细胞计数', '3.86', '血红蛋白', '血小板计数', '171', '儿科']) expect(byFirstReader).toContain(kept);
    },
    120_000,
  );

  it('returns the real phone photo turned 45° on a desk and photographed tilted 30° de-identified, every identifier under paint', async () => {
    const photo = 'np2016_bloodtestreport2.jpg';
    const bytes = await readFile(fixturePath('photos', photo));
    const { width = 0, height = 0 } = await sharp(bytes).metadata();
    const askew = await thenDistorted(await tiltedPage(bytes, 'top', 30), (png) => turnedPage(png, 45));
    served.set('askew.png', askew.png);
    const { status, json } = await post(gateway, [file(9, 'askew.png')]);
    expect(status, JSON.stringify(json)).toBe(200);
    const produced = await download(gateway, caseFileProcessResponse.parse(json).results[0]!.desensitized_url);
    const glyphs = placed({ width, height, planted: photoTruth()[photo]!.glyphs! }, askew, { width, height });
    // Each uncovered string named by its first character only: the photo shows a real patient.
    expect(uncovered(await coverage(produced.bytes, [glyphs])).map((line) => line.replace(/^page 1: (.)\S*/u, '$1***'))).toEqual([]);
  }, 120_000);

  it('returns a photo tilted 45° de-identified that case-ocr reads as it reads the photo sent: its paint is not taken for the page', async () => {
    const photo = 'np2016_bloodtestreport2.jpg';
    const upright = await readFile(fixturePath('photos', photo));
    // Soft, as a camera's pixels average the page: its far half small print.
    const tilted = await tiltedPage(upright, 'top', 45, { averaging: true });
    served.set('tilted-45.png', tilted.png);
    const { status, json } = await post(gateway, [file(12, 'tilted-45.png')]);
    expect(status, JSON.stringify(json)).toBe(200);
    const produced = await download(gateway, caseFileProcessResponse.parse(json).results[0]!.desensitized_url);
    const readIn = async (name: string, bytes: Buffer) => {
      const text = (await readBack(gateway, name, bytes)).replace(/\s/g, '');
      return photoTruth()[photo]!.clinical!.filter((phrase) => text.includes(phrase));
    };
    const sent = await readIn('sent-45.png', tilted.png);
    expect(sent.length).toBeGreaterThanOrEqual(12);
    expect(await readIn('returned-45.png', produced.bytes)).toEqual(sent);
  }, 180_000);

  it('returns a clean pathology page with tightly packed fields: paint that nicks the next label is no reason to withhold it', async () => {
    const fixture = 'pathology-zh-clean.png';
    served.set('pathology.png', await readFile(join(DEID_FIXTURES, fixture)));
    const { status, json } = await post(gateway, [file(11, 'pathology.png')]);
    expect(status).toBe(200);
    const { bytes } = await download(gateway, caseFileProcessResponse.parse(json).results[0]!.desensitized_url);
    const text = (await readBack(gateway, 'pathology-out.png', bytes)).replace(/\s/g, '');
    const truth = deidGroundTruth()[fixture]!;
    expect(truth.personal.filter((personal) => text.includes(personal))).toEqual([]);
    for (const clinical of ['苏州市立第三医院病理诊断报告', '乙状结肠中分化腺癌', 'Ki-67约70%', '报告日期', '2024-10-25']) expect(text).toContain(clinical);
  }, 180_000);

  it('withholds a page whose text is found but too blurred to read, even when no line of it was legible enough to keep', async () => {
    const page = await readFile(join(DEID_FIXTURES, 'pathology-zh-clean.png'));
    for (const sigma of [5, 6]) {
      served.set(`blurred-${sigma}.png`, await sharp(page).blur(sigma).png().toBuffer());
      const { status, json } = await post(gateway, [file(12, `blurred-${sigma}.png`)]);
      expect(status, `blur sigma ${sigma}`).toBe(422);
      expect(json).toMatchObject({ error: { kind: 'deidentification_failed', retryable: false, message: expect.stringMatching(/^file 12: page 1 was read with confidence \d+/) } });
    }
  }, 120_000);

  it('names a file that cannot be fetched and stores nothing for the request', async () => {
    const before = await readdir(join(gateway.dataDir, 'blobs'));
    const { status, json } = await post(gateway, [file(1, 'report1.png'), file(2, 'missing.png')]);
    expect(status).toBe(502);
    expect(json.error).toMatchObject({ kind: 'fetch_failed', retryable: true });
    expect(json.error.message).toContain('file 2');
    expect(await readdir(join(gateway.dataDir, 'blobs'))).toEqual(before);
  }, 120_000);
});

/**
 * Reads "姓名: 张三" on every page; for `stubbornReads` reads from its `from`-th on, the name is
 * somewhere new each time along its line, as if the paint had missed it. Its label stays where it
 * is printed: the paint nicks it, and a reader reading it again there vouches for what is left.
 */
class DriftingNameOcr implements OcrEngine {
  readonly name = 'ocr' as const;
  reads = 0;

  constructor(
    private readonly stubbornReads: number,
    private readonly confidence = 90,
    private readonly from = 1,
  ) {}

  status() {
    return { state: 'ready' as const, configured: true, model: 'drifting' };
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {}

  async recognize(image: Buffer, _signal: AbortSignal, options?: RecognizeOptions): Promise<OcrPage> {
    const { width = 0, height = 0 } = await sharp(image).metadata();
    const stubborn = this.reads++ - this.from;
    const shift = stubborn >= 0 && stubborn < this.stubbornReads ? (stubborn + 1) * 300 : 0;
    const word = (text: string, x0: number, x1: number) => ({ text, confidence: 90, box: { x0, y0: 100, x1, y1: 140 }, line: 0 });
    return {
      text: '姓名:张三',
      words: [word('姓名:', 100, 200), word('张三', 210 + shift, 290 + shift)],
      width,
      height,
      confidence: this.confidence,
      rotation: options?.rotation ?? 0,
      deskewRadians: 0,
    };
  }
}

/**
 * Reads a form: a name and a clinical line beside it. From read `blindFrom` on it reads nothing
 * (or, `elsewhere`, the same text where none is), as a reader held at an angle it cannot read.
 */
class FormOcr implements OcrEngine {
  readonly name = 'ocr' as const;
  reads = 0;

  constructor(
    private readonly blindFrom = Infinity,
    private readonly elsewhere = false,
  ) {}

  status() {
    return { state: 'ready' as const, configured: true, model: 'form' };
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {}

  async recognize(image: Buffer, _signal: AbortSignal, options?: RecognizeOptions): Promise<OcrPage> {
    const { width = 0, height = 0 } = await sharp(image).metadata();
    const blind = this.reads++ >= this.blindFrom;
    const shift = blind && this.elsewhere ? 400 : 0;
    const word = (text: string, x0: number, x1: number, y0: number, line: number) => ({ text, confidence: 90, box: { x0, y0: y0 + shift, x1, y1: y0 + shift + 40 }, line });
    const words = blind && !this.elsewhere ? [] : [word('姓名:', 100, 200, 100, 0), word('张三', 210, 290, 100, 0), word('临床诊断:右肺上叶浸润性腺癌伴纵隔淋巴结转移', 100, 900, 200, 1)];
    return { text: words.map((w) => w.text).join(''), words, width, height, confidence: 90, rotation: options?.rotation ?? 0, deskewRadians: 0 };
  }
}

/**
 * Reads a page as a photo taken askew (turned `turn` degrees, and seen flat with `perspective`
 * when given), where only a closer look finds the name: its readings at the turn found are a
 * clinical line, the closer look the name beside it.
 */
class AskewPhotoOcr implements OcrEngine {
  readonly name = 'ocr' as const;
  readonly looks: boolean[] = [];
  /** How each reading was told the page lies (nothing: it found out), and whether to read it as it lies. */
  readonly lies: Array<Pick<RecognizeOptions, 'rotation' | 'perspective' | 'asItLies'>> = [];

  constructor(
    private readonly turn: number,
    private readonly perspective?: PagePerspective,
  ) {}

  status() {
    return { state: 'ready' as const, configured: true, model: 'askew' };
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {}

  async recognize(image: Buffer, _signal: AbortSignal, options?: RecognizeOptions): Promise<OcrPage> {
    const { width = 0, height = 0 } = await sharp(image).metadata();
    this.looks.push(options?.closerLook === true);
    const { rotation, perspective, asItLies } = options ?? {};
    this.lies.push({ ...(rotation === undefined ? {} : { rotation }), ...(perspective ? { perspective } : {}), ...(asItLies ? { asItLies } : {}) });
    const found = rotation === undefined && !asItLies && this.perspective ? { perspective: this.perspective } : {};
    const word = (text: string, x0: number, x1: number, y0: number, line: number) => ({ text, confidence: 90, box: { x0, y0, x1, y1: y0 + 40 }, line });
    const words = [word('临床诊断:右肺上叶浸润性腺癌伴纵隔淋巴结转移', 100, 900, 200, 0), ...(options?.closerLook ? [word('姓名:', 100, 200, 100, 1), word('张三', 210, 290, 100, 1)] : [])];
    return { text: '', words, width, height, confidence: 90, rotation: options?.rotation ?? this.turn, deskewRadians: 0, ...found };
  }
}

/** Reads the words `script` gives for each read in turn (0: the page's first reading, then the audit's). */
class ScriptedOcr implements OcrEngine {
  readonly name = 'ocr' as const;
  reads = 0;

  constructor(private readonly script: (read: number) => OcrWord[]) {}

  status() {
    return { state: 'ready' as const, configured: true, model: 'scripted' };
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {}

  async recognize(image: Buffer, _signal: AbortSignal, options?: RecognizeOptions): Promise<OcrPage> {
    const { width = 0, height = 0 } = await sharp(image).metadata();
    const words = this.script(this.reads++);
    return { text: words.map((w) => w.text).join(''), words, width, height, confidence: 90, rotation: options?.rotation ?? 0, deskewRadians: 0 };
  }
}

/** A word 40 px high at (x0, y0), on line `line`. */
const wordAt = (text: string, x0: number, x1: number, y0: number, line: number): OcrWord => ({ text, confidence: 90, box: { x0, y0, x1, y1: y0 + 40 }, line });
const CLINICAL_LINE = (y0: number, line: number) => wordAt('临床诊断:右肺上叶浸润性腺癌伴纵隔淋巴结转移', 100, 900, y0, line);

/** An OCR engine with an independent second reader, each counting its own reads. */
class TwoReaderOcr implements OcrEngine {
  readonly name = 'ocr' as const;
  readonly independentReader = true;

  constructor(
    readonly first: OcrEngine & { reads: number },
    readonly independent: OcrEngine & { reads: number },
  ) {}

  status() {
    return this.first.status();
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {}

  recognize(image: Buffer, signal: AbortSignal, options?: RecognizeOptions): Promise<OcrPage> {
    return (options?.reader === 'independent' ? this.independent : this.first).recognize(image, signal, options);
  }
}

async function withEngines(engines: Parameters<typeof enginesWith>[0], run: (gateway: TestGateway) => Promise<void>): Promise<void> {
  const gateway = await startGateway({ FETCH_ALLOW_LOOPBACK: 'true' }, { engines: enginesWith(engines) });
  try {
    await run(gateway);
  } finally {
    await gateway.close();
  }
}

describe('classification', () => {
  it('takes the LLM category where the rules are unsure, and keeps the rules when the LLM fails', async () => {
    const llm = new ScriptedLlmEngine((_request, call) => {
      if (call === 1) throw new Error('model crashed');
      return { category: 'discharge_summary' };
    });
    await withEngines({ ocr: new DriftingNameOcr(0), llm }, async (gateway) => {
      const first = await post(gateway, [file(1, 'report1.png')]);
      expect(first.json.results[0].category).toBe('discharge_summary');
      const second = await post(gateway, [file(1, 'report1.png')]);
      expect(second.json.results[0].category).toBe('other');
      expect(llm.requests).toHaveLength(2);
    });
  });
});

describe('the self-audit', () => {
  const auditMetric = async (gateway: TestGateway, outcome: string) => {
    const text = (await gateway.app.inject({ method: 'GET', url: '/metrics' })).body;
    return Number(new RegExp(`gateway_deid_audit_total\\{outcome="${outcome}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  };

  it('boxes a datum it still reads, and passes the page when the second audit is clean', async () => {
    await withEngines({ ocr: new DriftingNameOcr(1) }, async (gateway) => {
      const { status, json } = await post(gateway, [file(1, 'report1.png')]);
      expect(status).toBe(200);
      expect(json.results[0].redactions).toBe(2);
      expect(await auditMetric(gateway, 'clean_after_retry')).toBe(1);
    });
  });

  it('withholds a page read too poorly to vouch for, unless the operator lowers DEID_MIN_CONFIDENCE', async () => {
    await withEngines({ ocr: new DriftingNameOcr(0, 40) }, async (gateway) => {
      const { status, json } = await post(gateway, [file(5, 'report1.png')]);
      expect(status).toBe(422);
      expect(json.error).toMatchObject({ kind: 'deidentification_failed', retryable: false });
      expect(json.error.message).toMatch(/file 5: page 1 was read with confidence 40, under the 70/);
      expect(await auditMetric(gateway, 'unreadable')).toBe(1);
    });
    const lenient = await startGateway({ FETCH_ALLOW_LOOPBACK: 'true', DEID_MIN_CONFIDENCE: '30' }, { engines: enginesWith({ ocr: new DriftingNameOcr(0, 40) }) });
    try {
      expect((await post(lenient, [file(5, 'report1.png')])).status).toBe(200);
    } finally {
      await lenient.close();
    }
  });

  it('redacts and audits again for three rounds before it gives up', async () => {
    await withEngines({ ocr: new DriftingNameOcr(2) }, async (gateway) => {
      const { status, json } = await post(gateway, [file(1, 'report1.png')]);
      expect(status).toBe(200);
      expect(json.results[0].redactions).toBe(3);
      expect(await auditMetric(gateway, 'clean_after_retry')).toBe(1);
    });
  });

  it('has the independent reader read only pages the first reader found clean: a datum the first reader reads again costs it no read', async () => {
    const ocr = new TwoReaderOcr(new DriftingNameOcr(1), new DriftingNameOcr(0, 90, 0));
    await withEngines({ ocr }, async (gateway) => {
      const { status, json } = await post(gateway, [file(1, 'report1.png')]);
      expect(status).toBe(200);
      expect(json.results[0].redactions).toBe(2);
      // The page's reading, then two audits by the first reader; the independent one read the second audit's page only.
      expect([ocr.first.reads, ocr.independent.reads]).toEqual([3, 1]);
      expect(await auditMetric(gateway, 'clean_after_retry')).toBe(1);
    });
  });

  it('boxes a datum only the independent reader reads, and passes the page once both read it clean', async () => {
    const ocr = new TwoReaderOcr(new DriftingNameOcr(0), new DriftingNameOcr(1, 90, 0));
    await withEngines({ ocr }, async (gateway) => {
      const { status, json } = await post(gateway, [file(1, 'report1.png')]);
      expect(status).toBe(200);
      expect(json.results[0].redactions).toBe(2);
      expect([ocr.first.reads, ocr.independent.reads]).toEqual([3, 2]);
      expect(await auditMetric(gateway, 'clean_after_retry')).toBe(1);
    });
  });

  it('withholds a page whose datum only the independent reader still reads after every round', async () => {
    const ocr = new TwoReaderOcr(new DriftingNameOcr(0), new DriftingNameOcr(99, 90, 0));
    await withEngines({ ocr }, async (gateway) => {
      const { status, json } = await post(gateway, [file(4, 'report1.png')]);
      expect(status).toBe(422);
      expect(json.error).toMatchObject({ kind: 'deidentification_failed', retryable: false });
      expect(json.error.message).toMatch(/page 1: personal data \(name\) was still readable after 3 rounds of redaction/);
      expect([ocr.first.reads, ocr.independent.reads]).toEqual([4, 3]);
      expect(await readdir(join(gateway.dataDir, 'blobs'))).toEqual([]);
    });
  });

  it.each([
    ['姓名:', '张三', '也', 'name'],
    ['住院号:', '20240517', '4', 'hospital_id'],
  ])('returns a page where the independent reader reads one stroke beside the painted value of %s each round: one character names no one', async (label, value, stroke, kind) => {
    const form = (read: number, strokeAt?: number) => [
      wordAt(label, 100, 200, 100, 0),
      ...(read === 0 ? [wordAt(value, 210, 330, 100, 0)] : []),
      ...(strokeAt === undefined ? [] : [wordAt(stroke, strokeAt, strokeAt + 30, 100, 0)]),
      CLINICAL_LINE(200, 1),
    ];
    // Each audit round the stroke is read a little further along, past the paint of the round before.
    const independent = new ScriptedOcr((read) => form(1, 400 + 120 * read));
    await withEngines({ ocr: new TwoReaderOcr(new ScriptedOcr((read) => form(read)), independent) }, async (gateway) => {
      const { status, json } = await post(gateway, [file(1, 'report1.png')]);
      expect(status).toBe(200);
      expect(json.results[0].redactions).toBe(1);
      expect(independent.reads).toBe(1);
    });
    // Two characters there are a datum: painted each round, and the page withheld after the third.
    const twoStrokes = new ScriptedOcr((read) => form(1, 400 + 120 * read).map((word) => (word.text === stroke ? { ...word, text: stroke.repeat(2) } : word)));
    await withEngines({ ocr: new TwoReaderOcr(new ScriptedOcr((read) => form(read)), twoStrokes) }, async (gateway) => {
      const { status, json } = await post(gateway, [file(1, 'report1.png')]);
      expect(status).toBe(422);
      expect(json.error.message).toMatch(new RegExp(`personal data \\(${kind}\\) was still readable after 3 rounds`));
    });
  });

  it.each([
    ['reads nothing', false],
    ['reads the text where none is', true],
  ])('withholds a page the independent reader cannot see: it %s, so its "nothing found" means nothing', async (_how, elsewhere) => {
    const ocr = new TwoReaderOcr(new FormOcr(), new FormOcr(0, elsewhere));
    await withEngines({ ocr }, async (gateway) => {
      const { status, json } = await post(gateway, [file(6, 'report1.png')]);
      expect(status).toBe(422);
      expect(json.error).toMatchObject({ kind: 'deidentification_failed', retryable: false });
      expect(json.error.message).toMatch(/file 6: page 1: the audit could not read this page \(it read 0% of the text found there before, under the 50% needed/);
      expect(await readdir(join(gateway.dataDir, 'blobs'))).toEqual([]);
      expect(await auditMetric(gateway, 'unreadable')).toBe(1);
      const metrics = (await gateway.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toMatch(/gateway_deid_audit_read_share_bucket\{le="0.1",reader="independent"\} 1/);
      expect(metrics).toMatch(/gateway_deid_audit_read_share_bucket\{le="0.9",reader="first"\} 0/);
    });
  });

  it('returns the page once the independent reader reads what the first reading read, and lets an operator turn the check off', async () => {
    await withEngines({ ocr: new TwoReaderOcr(new FormOcr(), new FormOcr()) }, async (gateway) => {
      expect((await post(gateway, [file(6, 'report1.png')])).status).toBe(200);
    });
    const lenient = await startGateway({ FETCH_ALLOW_LOOPBACK: 'true', DEID_AUDIT_MIN_READ: '0' }, { engines: enginesWith({ ocr: new TwoReaderOcr(new FormOcr(), new FormOcr(0)) }) });
    try {
      expect((await post(lenient, [file(6, 'report1.png')])).status).toBe(200);
    } finally {
      await lenient.close();
    }
  });

  it('looks closer at a photo taken askew and paints what either reading finds; a scan lying square is read once', async () => {
    const askew = new AskewPhotoOcr(30);
    await withEngines({ ocr: askew }, async (gateway) => {
      const { status, json } = await post(gateway, [file(1, 'report1.png')]);
      expect(status).toBe(200);
      expect(json.results[0].page_redactions).toEqual([{ name: 1 }]);
      // The first reading, the closer look at its turn, then the audit.
      expect(askew.looks).toEqual([false, true, false]);
    });
    const square = new AskewPhotoOcr(90);
    await withEngines({ ocr: square }, async (gateway) => {
      const { json } = await post(gateway, [file(1, 'report1.png')]);
      expect(json.results[0].page_redactions).toEqual([{}]);
      expect(square.looks).toEqual([false, false]);
    });
  });

  it('looks closer at a photo taken at a slant both flat and as it lies, and audits it as the first reading saw it: at its turn, in its flat view', async () => {
    const perspective = { p: 2e-4, q: 5e-4 };
    const slanted = new AskewPhotoOcr(30, perspective);
    await withEngines({ ocr: slanted }, async (gateway) => {
      const { status, json } = await post(gateway, [file(1, 'report1.png')]);
      expect(status).toBe(200);
      expect(json.results[0].page_redactions).toEqual([{ name: 1 }]);
      expect(slanted.looks).toEqual([false, true, true, false]);
      expect(slanted.lies).toEqual([{}, {}, { asItLies: true }, { rotation: 30, perspective }]);
    });
  });

  // A table photographed at a slant, whose first reading grouped its header row with the row
  // below: it lost the 姓名 header, or read the next row's age after it, and left the name below.
  it.each([
    ['no label over it', (read: number) => [...(read > 0 ? [wordAt('姓名', 100, 180, 100, 0)] : []), wordAt('性别', 300, 380, 100, 0)], 1],
    ['a number after its label', (read: number) => [wordAt('姓名', 100, 180, 100, 0), ...(read === 0 ? [wordAt('52岁', 300, 380, 110, 0)] : [])], 2],
  ])('paints a name the audit reads in the cell below its column\'s 姓名, where the first reading read %s', async (_how, header, painted) => {
    const table = new ScriptedOcr((read) => [
      ...header(read),
      // Painted after the first audit.
      ...(read < 2 ? [wordAt('张三', 100, 180, 150, 1)] : []),
      wordAt('男', 300, 340, 150, 1),
      CLINICAL_LINE(250, 2),
    ]);
    await withEngines({ ocr: table }, async (gateway) => {
      const { status, json } = await post(gateway, [file(1, 'report1.png')]);
      expect(status).toBe(200);
      expect(json.results[0].page_redactions).toEqual([{ name: painted }]);
      expect(await auditMetric(gateway, 'clean_after_retry')).toBe(1);
    });
  });

  it.each([
    [
      'a labelled field in reach below the painted cell under a 姓名 header',
      (read: number) => [wordAt('姓名', 100, 180, 100, 0), ...(read === 0 ? [wordAt('张三', 100, 180, 150, 1)] : []), wordAt('年龄:56岁', 100, 260, 200, 2)],
      // The cell, and the blank right of the header where a value may stand too.
      2,
    ],
    [
      'a stroke read in the painted cell under a 姓名 header, what is left of a ruling line',
      (read: number) => [wordAt('姓名', 100, 180, 100, 0), read === 0 ? wordAt('张三', 100, 180, 150, 1) : wordAt('|', 196, 200, 150, 1)],
      2,
    ],
    [
      'the line below a 姓名: whose name was painted on its line',
      (read: number) => [wordAt('姓名:', 100, 200, 100, 0), ...(read === 0 ? [wordAt('张三', 210, 290, 100, 0)] : []), wordAt('右肺上叶腺癌', 100, 280, 150, 1)],
      1,
    ],
  ])('takes no value for the name from %s, once the name is painted', async (_what, words, painted) => {
    const form = new ScriptedOcr((read) => [...words(read), CLINICAL_LINE(300, 3)]);
    await withEngines({ ocr: form }, async (gateway) => {
      const { status, json } = await post(gateway, [file(1, 'report1.png')]);
      expect(status).toBe(200);
      expect(json.results[0].page_redactions).toEqual([{ name: painted }]);
      expect(await auditMetric(gateway, 'clean')).toBe(1);
    });
  });

  it('paints whole a word the paint nicked and the audit cannot read again, and audits the page again: what is left of it cannot be vouched for', async () => {
    /** Reads the form, then, on the painted page, no longer reads the label the name's paint nicked. */
    class NickedLabelLostOcr extends DriftingNameOcr {
      override async recognize(image: Buffer, signal: AbortSignal, options?: RecognizeOptions): Promise<OcrPage> {
        const page = await super.recognize(image, signal, options);
        return this.reads > 1 ? { ...page, words: page.words.filter((word) => word.text !== '姓名:') } : page;
      }
    }
    await withEngines({ ocr: new NickedLabelLostOcr(0) }, async (gateway) => {
      const { status, json } = await post(gateway, [file(2, 'report1.png')]);
      expect(status).toBe(200);
      // The name, and its label painted whole as part of it.
      expect(json.results[0].page_redactions).toEqual([{ name: 2 }]);
      expect(await auditMetric(gateway, 'clean_after_retry')).toBe(1);
    });
  });

  it('withholds a page whose nicked words the audit cannot read again round after round, each painted whole nicking the next', async () => {
    // Narrow words set close: each one's paint reaches a third into the next. On the painted page
    // the reader reads only the clinical line: the row of the name is lost.
    const row = [wordAt('乙', 260, 280, 100, 0), wordAt('甲', 280, 300, 100, 0), wordAt('姓名:', 300, 400, 100, 0), wordAt('张三', 410, 490, 100, 0)];
    const form = new ScriptedOcr((read) => [...(read === 0 ? row : []), CLINICAL_LINE(300, 1)]);
    await withEngines({ ocr: form }, async (gateway) => {
      const { status, json } = await post(gateway, [file(2, 'report1.png')]);
      expect(status).toBe(422);
      expect(json.error).toMatchObject({ kind: 'deidentification_failed', retryable: false });
      expect(json.error.message).toMatch(/file 2: page 1: text the paint covers in part could not be read again/);
    });
  });

  it('withholds a file whose datum survives every round of redaction: 422 naming the page, not retryable, nothing stored', async () => {
    await withEngines({ ocr: new DriftingNameOcr(99) }, async (gateway) => {
      const { status, json } = await post(gateway, [file(4, 'report1.png')]);
      expect(status).toBe(422);
      expect(json.error).toMatchObject({ kind: 'deidentification_failed', retryable: false });
      expect(json.error.message).toContain('file 4');
      expect(json.error.message).toMatch(/page 1: personal data \(name\) was still readable after 3 rounds of redaction/);
      expect(json.error.message).not.toContain('张三');
      expect(await readdir(join(gateway.dataDir, 'blobs'))).toEqual([]);
      expect(await auditMetric(gateway, 'failed')).toBe(1);
      expect(gateway.logs.join('\n')).not.toContain('张三');
    });
  });
});
