/**
 * The OCR engine: tesseract.js (WASM, fully offline) in a pool of workers. Traineddata comes
 * from local files only (see traineddata.ts); status is `ready` once every worker has loaded
 * its languages, `failed` with the reason when they cannot.
 */
import sharp from 'sharp';
import { createWorker, OEM, type Worker } from 'tesseract.js';
import type { Config } from '../../../config/index.js';
import { GatewayError, isGatewayError } from '../../../errors.js';
import type { Logger } from '../../../platform/logger.js';
import type { ExpectedHash } from '../../../platform/models/trust.js';
import { EngineLifecycle } from '../../lifecycle.js';
import type { EngineStatus, OcrEngine, OcrPage, PagePerspective, RecognizeOptions } from '../../types.js';
import { pageFromBlocks, type TesseractBlock } from './blocks.js';
import { readTurned, readUpright } from './orientation.js';
import { prepareForTesseract, scaledPage, turnedView, unflattenedPage } from './prepare.js';
import { WorkerPool } from '../pool.js';
import { languagesProblem, languagesVersion, linkLanguages, locateLanguages, type LanguageFiles } from './traineddata.js';

export type OcrSettings = Config['ocr'];


/**
 * Pages are prepared at ~300 DPI (prepare.ts); saying so stops tesseract guessing the
 * resolution from missing metadata and printing warnings to stdout, and its debug lines go nowhere.
 */
const TESSERACT_PARAMETERS = { user_defined_dpi: '300', debug_file: '/dev/null' };

export class TesseractOcrEngine implements OcrEngine {
  readonly name = 'ocr' as const;
  private readonly lifecycle = new EngineLifecycle('loading traineddata into the OCR workers');
  private pool: WorkerPool<Worker> | undefined;
  private removeLangPath: (() => Promise<void>) | undefined;

  constructor(
    private readonly settings: OcrSettings,
    private readonly languages: LanguageFiles,
    private readonly logger?: Logger,
    /** Set when the traineddata comes from OCR_TESSDATA_DIR: the hashes the manifest or SHA256SUMS vouch for. */
    private readonly expectedHash?: (path: string) => ExpectedHash | undefined,
  ) {
    this.lifecycle.runsOn(`cpu: ${settings.workers} tesseract.js workers`);
  }

  status(): EngineStatus {
    return this.lifecycle.status();
  }

  async start(): Promise<void> {
    const problem = await this.checkLanguages();
    if (problem) {
      this.lifecycle.become('failed', problem);
      this.logger?.error({ engine: 'ocr', reason: problem }, 'OCR engine failed');
      return;
    }
    try {
      const { langPath, remove } = await linkLanguages(this.languages);
      this.removeLangPath = remove;
      const langs = [...this.languages.files.keys()];
      this.pool = new WorkerPool(
        async () => {
          const worker = await createWorker(langs, OEM.LSTM_ONLY, {
            langPath,
            gzip: false,
            cacheMethod: 'none',
            errorHandler: (error: unknown) => this.logger?.warn({ err: describe(error) }, 'OCR worker error'),
          });
          await worker.setParameters(TESSERACT_PARAMETERS);
          return worker;
        },
        this.settings.workers,
        this.settings.workerMaxJobs,
      );
      const started = Date.now();
      await this.pool.start(this.settings.startTimeoutMs);
      this.lifecycle.ready();
      this.logger?.info({ engine: 'ocr', workers: this.pool.size, ms: Date.now() - started, model: this.status().model }, 'OCR engine ready');
    } catch (error) {
      const reason = `OCR workers failed to start: ${describe(error)}`;
      this.lifecycle.become('failed', reason);
      this.logger?.error({ engine: 'ocr', reason }, 'OCR engine failed');
      await this.close();
      throw error;
    }
  }

  /** Why the traineddata cannot serve (unreadable, or not the file vouched for), else undefined; notes its version. */
  private async checkLanguages(): Promise<string | undefined> {
    const problem = await languagesProblem(this.languages);
    if (problem) return problem;
    try {
      const version = await languagesVersion(this.languages, this.expectedHash);
      this.lifecycle.serves(version.label, version.verified);
      return undefined;
    } catch (error) {
      return describe(error);
    }
  }

  recognize(image: Buffer, signal: AbortSignal, options?: RecognizeOptions): Promise<OcrPage> {
    const pool = this.pool;
    if (this.lifecycle.state !== 'ready' || !pool) {
      return Promise.reject(new GatewayError('engine_unavailable', `the ocr engine is ${this.lifecycle.state}`));
    }
    const eraseLines = options?.eraseRulingLines ?? false;
    const readIn = (perspective: PagePerspective | undefined) => (input: Buffer, rotation: number) =>
      pool.use(signal, async (worker) => {
        const view = await turnedView(input, rotation, eraseLines, perspective);
        const { data } = await worker.recognize(view.image, { rotateAuto: true }, { text: false, blocks: true });
        const { width = 0, height = 0 } = await sharp(view.image).metadata();
        const page = { ...pageFromBlocks((data.blocks ?? []) as unknown as TesseractBlock[]), width, height, rotation, deskewRadians: data.rotateRadians ?? 0 };
        return view.flat ? unflattenedPage(page, view.flat) : page;
      });
    const reading = prepareForTesseract(image, eraseLines).then(async (prepared) => {
      // The first reading's perspective is in the page's pixels; the prepared page is scaled.
      const read = readIn(options?.perspective && { p: options.perspective.p / prepared.scale, q: options.perspective.q / prepared.scale });
      const page = options?.rotation === undefined ? await readUpright(prepared.image, read) : await readTurned(prepared.image, options.rotation, read);
      return scaledPage(page, 1 / prepared.scale);
    });
    return reading.catch((error: unknown) => {
      if (signal.aborted || isGatewayError(error)) throw error;
      throw new GatewayError('engine_failed', `OCR failed: ${describe(error)}`, { retryable: true, cause: error });
    });
  }

  async close(): Promise<void> {
    await this.pool?.close();
    await this.removeLangPath?.();
  }
}

/** Error text without patient content (tesseract errors carry none). */
function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The engine when its traineddata exists, else why not. */
export function createTesseractEngine(
  settings: OcrSettings,
  logger?: Logger,
  expectedHash?: (path: string) => ExpectedHash | undefined,
): TesseractOcrEngine | { reason: string } {
  const languages = locateLanguages(settings.langs, settings.tessdataDir);
  return 'reason' in languages ? languages : new TesseractOcrEngine(settings, languages, logger, expectedHash);
}
