/**
 * SHA256SUMS beside the model files: `<hex>  <file>` lines, as sha256sum writes them. The models
 * tool records there what it downloaded or installed; the gateway checks models against it.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const CHECKSUMS_FILE = 'SHA256SUMS';

/** A file's sha256, streamed: model files are gigabytes. */
export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function parseChecksums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]{64}) [ *](.+)$/.exec(line.trim());
    if (match) sums.set(match[2]!, match[1]!);
  }
  return sums;
}

export async function readChecksums(dir: string): Promise<Map<string, string>> {
  try {
    return parseChecksums(await readFile(join(dir, CHECKSUMS_FILE), 'utf8'));
  } catch {
    return new Map();
  }
}

/** For the gateway's start, which decides synchronously which hash each engine expects. */
export function readChecksumsSync(dir: string): Map<string, string> {
  const path = join(dir, CHECKSUMS_FILE);
  return existsSync(path) ? parseChecksums(readFileSync(path, 'utf8')) : new Map();
}

export async function writeChecksums(dir: string, sums: Map<string, string>): Promise<void> {
  const lines = [...sums].sort(([a], [b]) => a.localeCompare(b)).map(([file, sha256]) => `${sha256}  ${file}\n`);
  const temporary = join(dir, `${CHECKSUMS_FILE}.tmp`);
  await writeFile(temporary, lines.join(''));
  await rename(temporary, join(dir, CHECKSUMS_FILE));
}
