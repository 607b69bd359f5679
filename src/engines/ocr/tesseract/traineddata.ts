/**
 * Where the traineddata files come from: a configured directory (e.g. Debian's tessdata) or the
 * @tesseract.js-data npm packages (LSTM "best_int" models). tesseract.js reads every language
 * from one langPath, and a missing file there makes it fetch from a CDN or crash the process,
 * so the files are checked first and linked into one private directory.
 */
import { existsSync } from 'node:fs';
import { readFile, rm, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { sha256OfFile } from '../../../platform/models/checksums.js';
import { checkExpectedHash, type ExpectedHash } from '../../../platform/models/trust.js';
import { makeTempDir } from '../../../platform/temp.js';

export interface LanguageFiles {
  /** lang code → absolute path of its traineddata (gzipped or not; tesseract.js sniffs gzip). */
  files: Map<string, string>;
}

const NPM_MODEL_FOLDER = '4.0.0_best_int';

function npmTraineddata(lang: string): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve(`@tesseract.js-data/${lang}/package.json`);
    const path = join(dirname(manifest), NPM_MODEL_FOLDER, `${lang}.traineddata.gz`);
    return existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

function dirTraineddata(dir: string, lang: string): string | undefined {
  return [`${lang}.traineddata`, `${lang}.traineddata.gz`].map((name) => resolve(dir, name)).find((path) => existsSync(path));
}

/** The file of every language, or why one is missing, in words an operator can act on. */
export function locateLanguages(langs: string[], tessdataDir: string | undefined): LanguageFiles | { reason: string } {
  const files = new Map<string, string>();
  for (const lang of langs) {
    const path = tessdataDir ? dirTraineddata(tessdataDir, lang) : npmTraineddata(lang);
    if (!path) {
      const where = tessdataDir ? `in OCR_TESSDATA_DIR (${tessdataDir})` : `from the npm package @tesseract.js-data/${lang}`;
      return { reason: `traineddata for ${lang} not found ${where}` };
    }
    files.set(lang, path);
  }
  return { files };
}

const MAX_TABLE_ENTRIES = 64;
/** Index of the LSTM recogniser in the table (tessdatamanager.h: TESSDATA_LSTM). */
const LSTM_ENTRY = 17;

/**
 * Why a traineddata file cannot serve the LSTM engine, or undefined when it can. tesseract.js
 * answers a broken file with an exception thrown in a worker message handler, which no caller
 * can catch and which ends the process, so files are checked before any worker sees them: the
 * header is an int32 entry count and one int64 offset per entry (-1 when absent), each inside
 * the file and in increasing order, and the LSTM entry must be present.
 */
export async function traineddataProblem(path: string): Promise<string | undefined> {
  let bytes = await readFile(path);
  try {
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  } catch {
    return 'is a broken gzip file';
  }
  const count = bytes.length >= 4 ? bytes.readInt32LE(0) : -1;
  if (count < LSTM_ENTRY + 1 || count > MAX_TABLE_ENTRIES || bytes.length < 4 + 8 * count) return 'has no traineddata header';
  let previous = 4 + 8 * count - 1;
  for (let entry = 0; entry < count; entry++) {
    const offset = Number(bytes.readBigInt64LE(4 + 8 * entry));
    if (offset === -1) continue;
    if (offset <= previous || offset >= bytes.length) return 'is truncated or corrupt (offset table out of range)';
    previous = offset;
  }
  return bytes.readBigInt64LE(4 + 8 * LSTM_ENTRY) === -1n ? 'has no LSTM model (legacy-only traineddata)' : undefined;
}

/** The first problem of any language's file, as a reason for the engine status. */
export async function languagesProblem(languages: LanguageFiles): Promise<string | undefined> {
  for (const [lang, path] of languages.files) {
    const problem = await traineddataProblem(path);
    if (problem) return `traineddata for ${lang} (${path}) ${problem}`;
  }
  return undefined;
}

/** One directory holding `<lang>.traineddata` links to every file; remove it with the returned function. */
export async function linkLanguages(languages: LanguageFiles): Promise<{ langPath: string; remove: () => Promise<void> }> {
  const langPath = await makeTempDir('tessdata');
  try {
    for (const [lang, path] of languages.files) await symlink(path, join(langPath, `${lang}.traineddata`));
  } catch (error) {
    await rm(langPath, { recursive: true, force: true });
    throw error;
  }
  return { langPath, remove: () => rm(langPath, { recursive: true, force: true }) };
}

export interface LanguagesVersion {
  /** "chi_sim.traineddata.gz@1a2b3c4d5e6f+eng.traineddata.gz@…" for /readyz and artifact keys. */
  label: string;
  /** Every file matched the hash vouched for; undefined when no check applies (the npm packages). */
  verified: boolean | undefined;
}

/** Hashes every file; with `expectedHash`, a file whose hash differs from the vouched-for one throws. */
export async function languagesVersion(
  languages: LanguageFiles,
  expectedHash?: (path: string) => ExpectedHash | undefined,
): Promise<LanguagesVersion> {
  const files = await Promise.all(
    [...languages.files.values()].map(async (path) => {
      const sha256 = await sha256OfFile(path);
      return { label: `${basename(path)}@${sha256.slice(0, 12)}`, verified: checkExpectedHash(path, sha256, expectedHash?.(path)) };
    }),
  );
  return {
    label: files.map((file) => file.label).join('+'),
    verified: expectedHash ? files.every((file) => file.verified) : undefined,
  };
}
