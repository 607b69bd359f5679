import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStores, type BlobStore, type Stores } from '../../../src/platform/store/index.js';

let dataDir: string;
let blobDir: string;
let stores: Stores;
let store: BlobStore;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-blobs-'));
  blobDir = join(dataDir, 'blobs');
  stores = await openStores({ dataDir, publicBaseUrl: 'http://gateway.test' });
  store = stores.blobs;
});

afterEach(async () => {
  await stores.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function rowCount(): Promise<number> {
  const { rows } = await sql<{ count: number }>`SELECT COUNT(*) AS count FROM blobs`.execute(stores.database.db);
  return rows[0]!.count;
}

const pdf = Buffer.from('%PDF-1.7 de-identified report');

describe('the blob store on SQLite (files beside the database)', () => {
  it('round-trips bytes and metadata', async () => {
    const meta = await store.put(pdf, { contentType: 'application/pdf', ttlSeconds: 60 });

    expect(meta.key).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(meta).toMatchObject({ contentType: 'application/pdf', size: pdf.length });
    expect(meta.expiresAt.getTime() - meta.createdAt.getTime()).toBe(60_000);

    const opened = await store.open(meta.key);
    expect(opened?.meta).toEqual(meta);
    expect(await readAll(opened!.stream)).toEqual(pdf);
  });

  it('keeps files private and leaves no temporary files behind', async () => {
    const meta = await store.put(pdf, { contentType: 'application/pdf', ttlSeconds: 60 });

    expect((await stat(blobDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(blobDir, meta.key))).mode & 0o777).toBe(0o600);
    expect(await readdir(blobDir)).toEqual([meta.key]);
  });

  it('stores a file by copying it, private, with its size, and leaves the file to the caller', async () => {
    const source = join(dataDir, 'upload');
    await writeFile(source, pdf);
    const meta = await store.putFile(source, { contentType: 'application/pdf', ttlSeconds: 60 });

    expect(meta).toMatchObject({ contentType: 'application/pdf', size: pdf.length });
    expect(await readAll((await store.open(meta.key))!.stream)).toEqual(pdf);
    expect((await stat(join(blobDir, meta.key))).mode & 0o777).toBe(0o600);
    expect(await readdir(blobDir)).toEqual([meta.key]);
    expect((await stat(source)).size).toBe(pdf.length);
  });

  it('gives each blob its own key', async () => {
    const first = await store.put(pdf, { contentType: 'application/pdf', ttlSeconds: 60 });
    const second = await store.put(pdf, { contentType: 'application/pdf', ttlSeconds: 60 });

    expect(first.key).not.toBe(second.key);
  });

  it('hides an expired blob and sweeps its file and row', async () => {
    const expired = await store.put(pdf, { contentType: 'application/pdf', ttlSeconds: 0 });
    const live = await store.put(pdf, { contentType: 'application/pdf', ttlSeconds: 60 });

    expect(await store.open(expired.key)).toBeNull();
    expect(await store.sweepExpired()).toBe(1);
    expect(await readdir(blobDir)).toEqual([live.key]);
    expect(await rowCount()).toBe(1);
  });

  it('sweeps by the given time', async () => {
    const meta = await store.put(pdf, { contentType: 'application/pdf', ttlSeconds: 60 });

    expect(await store.sweepExpired(new Date(meta.expiresAt.getTime() - 1))).toBe(0);
    expect(await store.sweepExpired(meta.expiresAt)).toBe(1);
    expect(await readdir(blobDir)).toEqual([]);
  });

  it('deletes a blob', async () => {
    const meta = await store.put(pdf, { contentType: 'application/pdf', ttlSeconds: 60 });

    await store.delete(meta.key);

    expect(await store.open(meta.key)).toBeNull();
    expect(await readdir(blobDir)).toEqual([]);
    expect(await rowCount()).toBe(0);
  });

  it('returns null for an unknown key, or a row whose file is gone', async () => {
    const meta = await store.put(pdf, { contentType: 'application/pdf', ttlSeconds: 60 });
    await rm(join(blobDir, meta.key));

    expect(await store.open('AAAAAAAAAAAAAAAAAAAAAAAA')).toBeNull();
    expect(await store.open(meta.key)).toBeNull();
  });

  it('sweeps what a killed put left (a half-written file, a file without its row), and nothing else', async () => {
    const kept = await store.put(pdf, { contentType: 'application/pdf', ttlSeconds: 60 });
    const halfWritten = '.BBBBBBBBBBBBBBBBBBBBBBBB.tmp';
    const withoutRow = 'CCCCCCCCCCCCCCCCCCCCCCCC';
    const notABlob = 'operator-notes.txt';
    for (const name of [halfWritten, withoutRow, notABlob]) await writeFile(join(blobDir, name), pdf);

    expect(await store.sweepLeftovers()).toBe(2);

    expect((await readdir(blobDir)).sort()).toEqual([kept.key, notABlob].sort());
    expect(await readAll((await store.open(kept.key))!.stream)).toEqual(pdf);
    expect(await store.sweepLeftovers()).toBe(0);
  });

  it('never follows a key that is not a blob key', async () => {
    await writeFile(join(dataDir, 'x'), 'outside the blob directory');

    expect(await store.open('../x')).toBeNull();
    await store.delete('../x');
    expect(await stat(join(dataDir, 'x'))).toBeTruthy();
    expect(await store.open('')).toBeNull();
  });
});
