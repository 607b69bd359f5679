/**
 * SHA256SUMS: the list beside the model files (`<hex>  <file>` lines, as sha256sum writes them)
 * that models:fetch and models:install keep, and the streamed sha256 of a file.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const CHECKSUMS_FILE = 'SHA256SUMS';

export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** File name → sha256, from `<hex>  <file>` lines (text or binary mode); other lines are ignored. */
export function parseChecksums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]{64}) [ *](.+)$/.exec(line.trim());
    if (match) sums.set(match[2]!, match[1]!);
  }
  return sums;
}

/** The SHA256SUMS of a folder; empty when it has none. */
export async function readChecksums(dir: string): Promise<Map<string, string>> {
  try {
    return parseChecksums(await readFile(join(dir, CHECKSUMS_FILE), 'utf8'));
  } catch {
    return new Map();
  }
}

/** Replaces a folder's SHA256SUMS in one rename, sorted by file name. */
export async function writeChecksums(dir: string, sums: Map<string, string>): Promise<void> {
  const lines = [...sums].sort(([a], [b]) => a.localeCompare(b)).map(([file, sha256]) => `${sha256}  ${file}\n`);
  const temporary = join(dir, `${CHECKSUMS_FILE}.tmp`);
  await writeFile(temporary, lines.join(''));
  await rename(temporary, join(dir, CHECKSUMS_FILE));
}
