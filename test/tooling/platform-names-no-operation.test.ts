/**
 * platform/ serves every operation and names none: what only one operation uses lives in its
 * folder (operations/<id>/), so adding or changing an operation never edits the platform.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { OPERATIONS } from '../../src/contract/operations.js';
import { REPO_ROOT } from '../../scripts/lib/paths.js';

const PLATFORM = join(REPO_ROOT, 'src', 'platform');

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => join(entry.parentPath, entry.name));
}

/** Each operation by its endpoint id and the specification's label (AI-1 … AI-7); `asr` is also the engine's name, so only its label counts. */
const OPERATION_NAMES = Object.values(OPERATIONS).flatMap(({ id, label }) => [
  ...(id === 'asr' ? [] : [id]),
  ...label.split(/\s*&\s*/),
]);

it('no file under src/platform names an operation', async () => {
  const named: string[] = [];
  for (const file of await sourceFiles(PLATFORM)) {
    const text = await readFile(file, 'utf8');
    for (const name of OPERATION_NAMES) if (new RegExp(`\\b${name}\\b`).test(text)) named.push(`${relative(REPO_ROOT, file)}: ${name}`);
  }
  expect(OPERATION_NAMES).toEqual(expect.arrayContaining(['speech-process', 'report-advice-draft', 'AI-3', 'AI-4', 'AI-7']));
  expect(named).toEqual([]);
});
