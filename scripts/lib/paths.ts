import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the repository's files are, found from this file rather than the working directory, so
 * the tests and the scripts run from anywhere.
 */
export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** A file or folder under test/fixtures/. */
export const fixturePath = (...parts: string[]): string => join(REPO_ROOT, 'test', 'fixtures', ...parts);

/** The checkout's models/ folder, where the random-weight test models are generated (git-ignored). */
export const TEST_MODELS_DIR = join(REPO_ROOT, 'models');
