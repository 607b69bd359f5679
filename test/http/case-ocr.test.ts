/**
 * case-ocr through the HTTP interface with the real OCR engine (PP-OCR, one worker) on the
 * project's rendered fixtures and the real phone photos, served by a local file server.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { caseOcrResponse } from '../../src/contract/case-files.js';
import { loadConfig } from '../../src/config/index.js';
import { createOcrEngine } from '../../src/engines/ocr/index.js';
import { removeCjkSpaces } from '../../src/engines/ocr/line-text.js';
import { startFileServer, type FileServer, fileReference, type FileReferenceBody } from '../../scripts/lib/file-server.js';
import { WAV_BYTES } from '../support/media-bytes.js';
import { OCR_ENV, OCR_START_WITHIN_MS, startOcrGateway, type TestGateway, postFiles } from '../../scripts/lib/gateway.js';
import { a4Truth, groundTruth, patientRequests, readFixture } from '../../scripts/lib/ocr-fixtures.js';
import { characterErrorRate, lostLines } from '../../scripts/lib/eval-gateway.js';
import { ScriptedLlmEngine } from '../support/test-engines.js';
import { enginesWith } from '../../scripts/lib/stand-in-engines.js';
import { fixturePath } from '../../scripts/lib/paths.js';
import { photoTruth } from '../../scripts/lib/photos.js';
import { thenDistorted, tiltedPage, turnedPage } from '../../scripts/lib/redaction.js';

const PATH = '/ai/v1/case-ocr';

let files: FileServer;
let gateway: TestGateway;
/** Pages a test made, served by name. */
const made = new Map<string, Buffer>();

const file = (upload_file_id: number, name: string) => fileReference(files, upload_file_id, name);

const post = (target: TestGateway, fileList: FileReferenceBody[]) => postFiles(target, PATH, 'req-ocr-1', fileList);

/** Ground truth as the pipeline writes it: single spaces, none between Chinese characters. */
const asRead = (text: string) => text.split('\n').map((line) => removeCjkSpaces(line.replace(/ +/g, ' '))).join('\n');

beforeAll(async () => {
  files = await startFileServer((request, response) => {
    const name = (request.url ?? '/').slice(1);
    if (name === 'recording.wav') return void response.end(WAV_BYTES);
    if (name === 'broken.png') return void response.end(readFixture('report1.png').subarray(0, 3000));
    if (name === 'missing.png') return void response.writeHead(404).end();
    if (name.startsWith('photos/')) return void response.end(readFileSync(fixturePath(...name.split('/'))));
    if (made.has(name)) return void response.end(made.get(name));
    try {
      response.end(readFixture(name));
    } catch {
      response.writeHead(404).end();
    }
  });
  gateway = await startOcrGateway();
}, OCR_START_WITHIN_MS);

afterAll(async () => {
  await gateway?.close();
  await files?.close();
});

describe('case-ocr with the real OCR engine', () => {
  it('answers one result per file in request order, text layer and OCR alike, with patient_info from the rules', async () => {
    const truth = groundTruth();
    const { status, json } = await post(gateway, [file(11, 'report1-text.pdf'), file(7, 'report2.png')]);
    expect(status).toBe(200);
    expect(caseOcrResponse.safeParse(json).success).toBe(true);
    expect(json.request_id).toBe('req-ocr-1');
    expect(json.ocr_results.map((r: { upload_file_id: number }) => r.upload_file_id)).toEqual([11, 7]);
    expect(json.ocr_results[0].ocr_result).toBe(asRead(truth['report1-text.pdf']!.text));
    const scanned: string = json.ocr_results[1].ocr_result;
    expect(scanned).toContain('市第一人民医院病理诊断报告单');
    expect(scanned).toContain('李秀英');
    expect(scanned).not.toMatch(/\p{Script=Han} \p{Script=Han}/u);
    // The first file names its patient first; the rules read it.
    expect(json.patient_info).toEqual(truth['report1-text.pdf']!.patient_info);
    // Patient text never reaches the logs.
    expect(gateway.logs.join('\n')).not.toMatch(/张三|李秀英|肺腺癌/);
  }, 60_000);

  it('answers each page\'s lines with their boxes only when asked (include_lines), upright pages of the turned image', async () => {
    const plain = await post(gateway, [file(3, 'report1-rot180.jpg')]);
    expect(plain.json.ocr_results[0]).not.toHaveProperty('pages');

    const response = await gateway.app.inject({
      method: 'POST',
      url: PATH,
      payload: { request_id: 'req-ocr-lines', files: [file(3, 'report1-rot180.jpg')], include_lines: true },
    });
    expect(response.statusCode).toBe(200);
    const [result] = caseOcrResponse.parse(response.json()).ocr_results;
    const [page] = result!.pages!;
    expect(page).toMatchObject({ rotation: 180, width: expect.any(Number), height: expect.any(Number) });
    expect(page!.lines.map((line) => line.text).join('\n')).toBe(result!.ocr_result);
    const nameLine = page!.lines.find((line) => line.text.includes('张三'))!;
    const title = page!.lines.find((line) => line.text.includes('病理诊断报告单'))!;
    // Upright: the title stands above the name line, and every box lies on the page.
    expect(title.box.y1).toBeLessThanOrEqual(nameLine.box.y0 + 2);
    for (const { box } of page!.lines) {
      expect(box.x0).toBeGreaterThanOrEqual(0);
      expect(box.x1).toBeLessThanOrEqual(page!.width);
      expect(box.y1).toBeLessThanOrEqual(page!.height);
      expect(box.x1).toBeGreaterThan(box.x0);
    }
  }, 60_000);

  it('turns a page scanned upside down upright before reading it', async () => {
    const { status, json } = await post(gateway, [file(3, 'report1-rot180.jpg')]);
    expect(status).toBe(200);
    expect(json.ocr_results[0].ocr_result).toContain('病理诊断报告单');
    expect(json.patient_info).toMatchObject({ name: '张三', age: '56', cancer_type: '肺癌' });
  }, 60_000);

  it.each(['np2016_bloodtestreport2.jpg', 'np2016_bloodtestreport1.jpg'])(
    'reads every identifier on the real phone photo %s, and the patient it names',
    async (photo) => {
      const { status, json } = await post(gateway, [file(5, `photos/${photo}`)]);
      expect(status).toBe(200);
      const text = (json.ocr_results[0].ocr_result as string).replace(/\s+/g, '');
      for (const identifier of photoTruth()[photo]!.personal!) expect(text).toContain(identifier);
      expect(json.patient_info).toMatchObject({ name: '孟丁', age: '2' });
      expect(gateway.logs.join('\n')).not.toContain('孟丁');
    },
    60_000,
  );

  /** The identifiers of `photo` (by place in its truth, never their text) that case-ocr misses in `image`, uploaded as `name`. */
  const identifiersMissed = async (photo: string, id: number, name: string, image: Buffer) => {
    made.set(name, image);
    const { status, json } = await post(gateway, [file(id, name)]);
    expect(status).toBe(200);
    const text = (json.ocr_results[0].ocr_result as string).replace(/\s+/g, '');
    return photoTruth()[photo]!.personal!.flatMap((identifier, i) => (text.includes(identifier) ? [] : [`identifier ${i + 1}`]));
  };
  /** The real photo as it stands upright. */
  const uprightPhoto = (photo: string) =>
    sharp(readFileSync(fixturePath('photos', photo)))
      .rotate(photoTruth()[photo]!.rotation ?? 0)
      .png()
      .toBuffer();

  it('reads every identifier on the real phone photo turned 45° on a desk and photographed tilted 30°', async () => {
    const photo = 'np2016_bloodtestreport2.jpg';
    const tilted = await tiltedPage(readFileSync(fixturePath('photos', photo)), 'top', 30);
    expect(await identifiersMissed(photo, 5, 'askew.png', (await thenDistorted(tilted, (png) => turnedPage(png, 45))).png)).toEqual([]);
  }, 60_000);

  it('reads every identifier on a real phone photo turned 225° on a desk, a faint name closing its row included', async () => {
    const photo = 'np2016_bloodtestreport2.jpg';
    expect(await identifiersMissed(photo, 7, 'turned-225.png', (await turnedPage(await uprightPhoto(photo), 225)).png)).toEqual([]);
  }, 60_000);

  it('reads every identifier on a real phone photo turned 15° from upright and from upside down on a desk', async () => {
    const photo = 'np2016_bloodtestreport1.jpg';
    const upright = await uprightPhoto(photo);
    for (const angle of [15, 195]) {
      expect(await identifiersMissed(photo, 8, `turned-${angle}.png`, (await turnedPage(upright, angle)).png), `turned ${angle}°`).toEqual([]);
    }
  }, 90_000);

  it('reads every identifier on a real phone photo standing upright and photographed tilted 30°, its far edge the top or the bottom', async () => {
    const photo = 'np2016_bloodtestreport2.jpg';
    const upright = await uprightPhoto(photo);
    for (const far of ['top', 'bottom'] as const) {
      expect(await identifiersMissed(photo, 6, `tilted-${far}.png`, (await tiltedPage(upright, far, 30)).png), `far edge ${far}`).toEqual([]);
    }
  }, 90_000);

  it('reads full A4 pages of small print at 150 dpi whole, in English and in Chinese: every line, CER under 2%', async () => {
    const pages = ['en-pathology-150dpi.png', 'zh-pathology-150dpi.jpg'];
    const { status, json } = await post(gateway, pages.map((name, index) => file(index + 1, `a4/${name}`)));
    expect(status).toBe(200);
    pages.forEach((name, index) => {
      const text: string = json.ocr_results[index].ocr_result;
      const truth = a4Truth()[name]!.text;
      expect({ name, lost: lostLines(text, truth) }).toEqual({ name, lost: [] });
      expect(characterErrorRate(text, truth)).toBeLessThan(0.02);
    });
  }, 120_000);

  it.each(Object.entries(patientRequests()))(
    'reads patient_info from the layout of %s (English labels, fields on one line, tables, a stage on a second file)',
    async (_request, truth) => {
      const { status, json } = await post(gateway, truth.files.map((name, index) => file(index + 1, `patient/${name}`)));
      expect(status).toBe(200);
      expect(json.patient_info).toEqual(truth.patient_info);
      expect(gateway.logs.join('\n')).not.toContain(truth.patient_info.name);
    },
    60_000,
  );

  it.each([
    ['broken.png', 400, 'invalid_request', /file 2: .*could not be decoded/],
    ['recording.wav', 415, 'unsupported_media', /^file 2: got audio\/wav, expected document$/],
    ['missing.png', 502, 'fetch_failed', /^file 2: could not fetch the URL/],
  ])('fails the whole request on one bad file (%s), naming its upload_file_id', async (name, status, kind, message) => {
    const response = await post(gateway, [file(1, 'report1-text.pdf'), file(2, name)]);
    expect(response.status).toBe(status);
    expect(response.json.error.kind).toBe(kind);
    expect(response.json.error.message).toMatch(message);
  });
});

describe('case-ocr with the LLM ready', () => {
  let refined: TestGateway;
  let llm: ScriptedLlmEngine;

  beforeAll(async () => {
    const created = createOcrEngine(loadConfig({ ...OCR_ENV }).ocr);
    if (!('engine' in created)) throw new Error(created.reason);
    const ocr = created.engine;
    // The model corrects the stage to the TNM it read, and invents a name that is not in the text.
    llm = new ScriptedLlmEngine(() => ({ name: '赵六', age: '56岁', cancer_type: '腺癌', stage: 'T2N2M0' }));
    refined = await startOcrGateway({ engines: enginesWith({ ocr, llm }) });
  }, OCR_START_WITHIN_MS);

  afterAll(() => refined?.close());

  it('keeps only model values found in the OCR text and the rules for the rest', async () => {
    const { status, json } = await post(refined, [file(5, 'report1-text.pdf')]);
    expect(status).toBe(200);
    // 腺癌 names no organ: the synonym table gives no type for it, so the rules' type stays.
    expect(json.patient_info).toEqual({ name: '张三', age: '56', cancer_type: '肺癌', stage: 'T2N2M0' });
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]!.messages.at(-1)!.content).toContain('病理分期');
  });
});
