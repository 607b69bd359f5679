/**
 * Where the traineddata files come from: a configured directory (e.g. Debian's tessdata) or the
 * @tesseract.js-data npm packages (LSTM "best_int" models). tesseract.js reads every language
 * from one langPath, and a missing file there makes it fetch from a CDN or crash the process,
 * so the files are checked first and linked into one private directory.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { hashFile } from '../llm/model-version.js';

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

/** One directory holding `<lang>.traineddata` links to every file; remove it with the returned function. */
export async function linkLanguages(languages: LanguageFiles): Promise<{ langPath: string; remove: () => Promise<void> }> {
  const langPath = await mkdtemp(join(tmpdir(), 'gateway-tessdata-'));
  try {
    for (const [lang, path] of languages.files) await symlink(path, join(langPath, `${lang}.traineddata`));
  } catch (error) {
    await rm(langPath, { recursive: true, force: true });
    throw error;
  }
  return { langPath, remove: () => rm(langPath, { recursive: true, force: true }) };
}

/** "chi_sim.traineddata.gz@1a2b3c4d5e6f+eng.traineddata.gz@…" for /readyz and artifact keys. */
export async function languagesVersion(languages: LanguageFiles): Promise<string> {
  const parts = await Promise.all(
    [...languages.files.values()].map(async (path) => `${basename(path)}@${(await hashFile(path)).slice(0, 12)}`),
  );
  return parts.join('+');
}
