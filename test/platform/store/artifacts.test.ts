import { beforeEach, expect, it } from 'vitest';
import type { ArtifactStore } from '../../../src/platform/store/artifacts.js';
import { describeOnEachBackend, type OpenedStores } from '../../support/store-backends.js';

describeOnEachBackend('ArtifactStore', (current) => {
  let opened: OpenedStores;
  let store: ArtifactStore;

  beforeEach(() => {
    opened = current();
    store = opened.stores.artifacts;
  });

  it('returns null for an unknown key', async () => {
    expect(await store.get('missing')).toBeNull();
  });

  it('round-trips a JSON value with its creation time', async () => {
    const before = Date.now();
    const value = { transcript: 'Patient stable.', segments: [{ start: 0, end: 1.5 }], language: null };

    await store.put('speech:abc', value);
    const stored = await store.get('speech:abc');

    expect(stored?.key).toBe('speech:abc');
    expect(stored?.value).toEqual(value);
    expect(stored?.createdAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(stored?.createdAt.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('replaces the value of an existing key', async () => {
    await store.put('k', { version: 1 });
    await store.put('k', { version: 2 });

    expect((await store.get('k'))?.value).toEqual({ version: 2 });
    expect(await opened.rows('SELECT key FROM artifacts')).toHaveLength(1);
  });

  it('purges the artifacts made before a time, and only those', async () => {
    await store.put('old', { n: 1 });
    await store.put('new', { n: 2 });
    const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
    await opened.rows(`UPDATE artifacts SET created_at = ${dayAgo - 1} WHERE key = 'old' RETURNING key`);
    expect(await store.purgeCreatedBefore(dayAgo)).toBe(1);
    expect(await store.get('old')).toBeNull();
    expect((await store.get('new'))?.value).toEqual({ n: 2 });
  });

  it('rejects a value with no JSON representation', async () => {
    await expect(store.put('k', undefined)).rejects.toMatchObject({ kind: 'internal' });
  });
});
