/**
 * The model's version: the sha256 of its file, computed once (streamed) and remembered
 *   - by the caller in memory (passed in as `known`; the LLM supervisor keeps it across restarts);
 *   - in `<model file>.sha256` next to the model when that folder is writable,
 * both keyed by the file's size and mtime, so a replaced file is hashed again.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { sha256OfFile } from '../platform/models/checksums.js';

/** A model file's sha256 as last computed, valid while the file keeps its size and mtime. */
export interface ModelFingerprint {
  size: number;
  mtimeMs: number;
  sha256: string;
}

const SIDECAR_SUFFIX = '.sha256';
const SHA256_HEX = /^[0-9a-f]{64}$/;

const matches = (fingerprint: unknown, size: number, mtimeMs: number): fingerprint is ModelFingerprint =>
  typeof fingerprint === 'object' &&
  fingerprint !== null &&
  (fingerprint as ModelFingerprint).size === size &&
  (fingerprint as ModelFingerprint).mtimeMs === mtimeMs &&
  typeof (fingerprint as ModelFingerprint).sha256 === 'string' &&
  SHA256_HEX.test((fingerprint as ModelFingerprint).sha256);

async function readSidecar(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path + SIDECAR_SUFFIX, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The file's fingerprint, hashing it only when neither `known` nor the sidecar matches its size and mtime. */
export async function modelFingerprint(path: string, known?: ModelFingerprint): Promise<ModelFingerprint> {
  const { size, mtimeMs } = await stat(path);
  if (matches(known, size, mtimeMs)) return known;
  const sidecar = await readSidecar(path);
  if (matches(sidecar, size, mtimeMs)) return { size, mtimeMs, sha256: sidecar.sha256 };
  const fingerprint = { size, mtimeMs, sha256: await sha256OfFile(path) };
  // Best effort: a read-only models folder just means hashing again at the next start.
  await writeFile(path + SIDECAR_SUFFIX, JSON.stringify(fingerprint) + '\n').catch(() => undefined);
  return fingerprint;
}

/** `<file name>@<first 12 hex of the sha256>`, as status().model shows it. */
export function modelLabel(path: string, sha256: string): string {
  return `${basename(path)}@${sha256.slice(0, 12)}`;
}
