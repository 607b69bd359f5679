import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, wherever the tests are run from. */
export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** The absolute path of a file or folder under test/fixtures. */
export const fixturePath = (relative: string): string => join(REPO_ROOT, 'test/fixtures', relative);

/** Where tests write and find their random-weight models (ignored by git). */
export const TEST_MODELS_DIR = join(REPO_ROOT, 'models');
