import { describe, expect, it } from 'vitest';
import { openDocument, pageImage, type DocumentLimits, type PageOptions } from '../../src/documents/index.js';
import { decodeRgb } from '../../src/engines/ocr/ppocr/image.js';
import { removeCjkSpaces } from '../../src/engines/ocr/line-text.js';
import { GatewayError } from '../../src/errors.js';
import { sniffMedia } from '../../src/platform/fetch/index.js';
import { WAV_BYTES } from '../support/media-bytes.js';
import { encryptedPdf, groundTruth, readFixture, toBmp } from '../../scripts/lib/ocr-fixtures.js';
import { bmpWith } from '../support/hostile-files.js';

const LIMITS: DocumentLimits = { maxPages: 10, maxPagePixels: 20_000_000, pdfHeapMb: 512, pdfPageTimeoutMs: 20_000 };

function open(bytes: Buffer, limits = LIMITS) {
  const media = sniffMedia(bytes);
  if (!media) throw new Error('fixture not sniffed');
  return openDocument(bytes, media, limits);
}

async function failure(work: Promise<unknown>): Promise<GatewayError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('document pages', () => {
  it.each(['report1.png', 'report1-rot90.jpg', 'report2.webp', 'report1-scanned.pdf'])(
    '%s gives one upright colour page at its own size, for each OCR engine to prepare as it reads best',
    async (file) => {
      const document = await open(readFixture(file));
      expect(document.pageCount).toBe(1);
      const page = await document.page(0, { raster: true });
      await document.close();
      if (page.kind !== 'image') throw new Error('expected an image page');
      const { default: sharp } = await import('sharp');
      const meta = await sharp(page.image).metadata();
      expect(['png', 'jpeg']).toContain(meta.format);
      expect([meta.orientation ?? 1, meta.hasAlpha]).toEqual([1, false]);
      // The reading's frame is the raster's: boxes need no scaling onto it.
      expect([page.raster!.readWidth, page.raster!.readHeight]).toEqual([meta.width, meta.height]);
      expect([page.raster!.width, page.raster!.height]).toEqual([meta.width, meta.height]);
    },
  );

  describe('a JPEG or PNG that needs no change', () => {
    const imageOf = async (bytes: Buffer, options: PageOptions = {}) => {
      const page = await (await open(bytes)).page(0, options);
      if (page.kind !== 'image') throw new Error('expected an image page');
      return page;
    };

    it.each(['report1.png', 'report1-rot90.jpg', 'a4/zh-pathology-150dpi.png', 'a4/en-radiology-300dpi.jpg'])('%s goes on as it came, with or without its raster', async (file) => {
      const bytes = readFixture(file);
      expect((await imageOf(bytes)).image.equals(bytes)).toBe(true);
      const { image, raster } = await imageOf(bytes, { raster: true });
      expect(image.equals(bytes)).toBe(true);
      const { default: sharp } = await import('sharp');
      const rgb = await sharp(bytes).toColourspace('srgb').raw().toBuffer();
      expect(raster!.rgb.equals(rgb)).toBe(true);
    });

    /** A JPEG with one byte of its coded data changed: libjpeg warns ("premature end of data segment") and reads on. */
    const damaged = () => {
      const bytes = Buffer.from(readFixture('report1-rot90.jpg'));
      bytes[14123] = 0;
      return bytes;
    };

    it('is the same picture, pixel for pixel, that the PP-OCR engine would get as PNG, a damaged JPEG included', async () => {
      const { default: sharp } = await import('sharp');
      await expect(sharp(damaged(), { failOn: 'warning' }).raw().toBuffer()).rejects.toThrow(/Corrupt JPEG/);
      const files = ['a4/zh-pathology-150dpi.png', 'a4/en-radiology-150dpi.jpg', 'report1-noisy.jpg'].map((file) => readFixture(file));
      for (const bytes of [...files, damaged()]) {
        expect((await imageOf(bytes)).image.equals(bytes)).toBe(true);
        const { width = 0, height = 0 } = await sharp(bytes).metadata();
        const [asItCame, asPng] = await Promise.all([decodeRgb(bytes, 32), decodeRgb(await pageImage(sharp(bytes, { failOn: 'error' }), Math.max(width, height)), 32)]);
        expect(Buffer.from(asItCame.data).equals(Buffer.from(asPng.data))).toBe(true);
      }
    });

    it('is written again as PNG when it is turned, transparent, 16-bit, CMYK or carries a colour profile', async () => {
      const { default: sharp } = await import('sharp');
      const report = readFixture('report1-rot90.jpg');
      const changed = {
        turned: await sharp(report).withMetadata({ orientation: 6 }).jpeg().toBuffer(),
        transparent: await sharp(report).ensureAlpha(0.5).png().toBuffer(),
        '16-bit': await sharp(report).png().toColourspace('rgb16').toBuffer(),
        cmyk: await sharp(report).toColourspace('cmyk').jpeg().toBuffer(),
        profiled: await sharp(report).withIccProfile('p3').jpeg().toBuffer(),
      };
      expect((await sharp(changed.turned).metadata()).orientation).toBe(6);
      for (const [change, bytes] of Object.entries(changed)) {
        const { image } = await imageOf(bytes);
        expect(image.subarray(1, 4).toString('latin1'), change).toBe('PNG');
        const meta = await sharp(image).metadata();
        expect([meta.depth, meta.hasAlpha, meta.orientation ?? 1, meta.space], change).toEqual(['uchar', false, 1, 'srgb']);
      }
    });
  });

  it('reads an A4 scan at 300 dpi at its own size, and scales a longer page down to that', async () => {
    const { default: sharp } = await import('sharp');
    const sizeOf = async (width: number, height: number) => {
      const scan = await sharp({ create: { width, height, channels: 3, background: 'white' } }).jpeg().toBuffer();
      const page = await (await open(scan)).page(0);
      if (page.kind !== 'image') throw new Error('expected an image page');
      const { width: readWidth, height: readHeight } = await sharp(page.image).metadata();
      return [readWidth, readHeight];
    };
    expect(await sizeOf(2480, 3508)).toEqual([2480, 3508]);
    expect(await sizeOf(3600, 2600)).toEqual([3508, 2534]);
  });

  it('reads a BMP (which libvips cannot) as the same picture', async () => {
    const document = await open(await toBmp(readFixture('report2.png')));
    const page = await document.page(0);
    expect(page.kind).toBe('image');
  });

  it('reads a BMP with a V4 or V5 header, and run-length BMP data, pixel for pixel', async () => {
    const rgbOf = async (bytes: Buffer) => [...(await (await open(bytes)).page(0, { raster: true })).raster!.rgb];
    // Two pixels, blue-green-red in the file: (1, 2, 3) and (4, 5, 6).
    const plain = bmpWith({ width: 2, height: 1 }, Buffer.from([3, 2, 1, 6, 5, 4, 0, 0]));
    expect(await rgbOf(plain)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const headerSize of [108, 124]) {
      const longer = Buffer.concat([plain.subarray(0, 54), Buffer.alloc(headerSize - 40), plain.subarray(54)]);
      longer.writeUInt32LE(longer.length, 2);
      longer.writeUInt32LE(14 + headerSize, 10);
      longer.writeUInt32LE(headerSize, 14);
      expect(await rgbOf(longer), `header of ${headerSize} bytes`).toEqual([1, 2, 3, 4, 5, 6]);
    }
    // RLE8, 3 × 1: a run of two pixels of palette entry 0, then one of entry 1 (bmpWith's palette is grey 0x80), then the end.
    const rle = bmpWith({ width: 3, height: 1, bitDepth: 8, compression: 1, colours: 2 }, Buffer.from([2, 0, 1, 1, 0, 1]));
    rle.set([0x10, 0x20, 0x30], 54);
    expect(await rgbOf(rle)).toEqual([0x30, 0x20, 0x10, 0x30, 0x20, 0x10, 0x80, 0x80, 0x80]);
  });

  it('gives each page of a multi-page TIFF', async () => {
    const document = await open(readFixture('reports-2page.tiff'));
    expect(document.pageCount).toBe(2);
    const pages = await Promise.all([document.page(0), document.page(1)]);
    expect(pages.map((page) => page.kind)).toEqual(['image', 'image']);
    expect((pages[0] as { image: Buffer }).image.equals((pages[1] as { image: Buffer }).image)).toBe(false);
  });

  it('takes a PDF text layer as it is, with reading-order lines, no spaces between Chinese characters and boxes', async () => {
    const document = await open(readFixture('report1-text.pdf'));
    const page = await document.page(0);
    await document.close();
    if (page.kind !== 'text') throw new Error('expected the text layer');
    const lines = groundTruth()['report1-text.pdf']!.text.split('\n');
    expect(page.page.text).toBe(lines.map((line) => removeCjkSpaces(line.replace(/ +/g, ' '))).join('\n'));
    expect(page.page.words.length).toBeGreaterThan(5);
    for (const word of page.page.words) {
      expect(word.box.x1).toBeGreaterThan(word.box.x0);
      expect(word.box.y1).toBeGreaterThan(word.box.y0);
      expect(word.box.x1).toBeLessThanOrEqual(page.page.width);
      expect(word.box.y1).toBeLessThanOrEqual(page.page.height);
    }
  });

  it('refuses a PDF with a password, clearly', async () => {
    const error = await failure(open(encryptedPdf()));
    expect(error.kind).toBe('invalid_request');
    expect(error.message).toMatch(/encrypted/);
  });

  it.each([
    ['a truncated PNG', () => readFixture('report1.png').subarray(0, 2000)],
    ['a JPEG cut off halfway', () => readFixture('report1-rot90.jpg').subarray(0, 20_000)],
    ['a PDF header with nothing after it', () => Buffer.from('%PDF-1.7\n%%EOF\n')],
  ])('refuses %s as corrupt, with or without its raster', async (_name, bytes) => {
    for (const options of [{}, { raster: true }]) {
      const error = await failure(open(bytes()).then((document) => document.page(0, options)));
      expect(error.kind).toBe('invalid_request');
      expect(error.message).toMatch(/could not be decoded/);
    }
  });

  it('stops decompression bombs and long files at the configured limits', async () => {
    const bomb = await failure(open(readFixture('report1.png'), { ...LIMITS, maxPagePixels: 100_000 }).then((d) => d.page(0)));
    expect(bomb.kind).toBe('payload_too_large');
    expect(bomb.message).toMatch(/OCR_MAX_PAGE_PIXELS/);
    const bmpBomb = await failure(open(await toBmp(readFixture('report2.png')), { ...LIMITS, maxPagePixels: 100_000 }));
    expect(bmpBomb.kind).toBe('payload_too_large');
    const pages = await failure(open(readFixture('reports-2page.tiff'), { ...LIMITS, maxPages: 1 }));
    expect(pages.kind).toBe('payload_too_large');
    expect(pages.message).toMatch(/2 pages.*OCR_MAX_PAGES/);
  });

  it('refuses media that is not a document', async () => {
    const error = await failure(open(WAV_BYTES));
    expect(error.kind).toBe('unsupported_media');
  });
});
