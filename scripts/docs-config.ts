/**
 * Writes the configuration reference of docs/operators-guide.md (§5) from the settings tables.
 *
 *   npm run docs:config              rewrite the guide's generated sections
 *   npm run docs:config -- --check   exit 1 when the guide is out of date (the tests run this)
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { SettingsTable } from '../src/config/define.js';
import { SETTINGS } from '../src/config/settings.js';
import { withReference } from '../src/config/reference.js';
import { RECEIVER_SETTINGS } from '../src/receiver/settings.js';

const GUIDE = new URL('../docs/operators-guide.md', import.meta.url);

const current = await readFile(GUIDE, 'utf8');
const tables: Array<[SettingsTable, string]> = [
  [SETTINGS, 'src/config/settings.ts'],
  [RECEIVER_SETTINGS, 'src/receiver/settings.ts'],
];
const updated = tables.reduce((text, [table, source]) => withReference(text, table, source), current);

if (process.argv.includes('--check')) {
  if (updated !== current) {
    console.error('docs/operators-guide.md §5 is out of date with the settings tables: run npm run docs:config');
    process.exit(1);
  }
} else if (updated !== current) {
  await writeFile(GUIDE, updated);
  console.log('docs/operators-guide.md: configuration reference updated');
}
