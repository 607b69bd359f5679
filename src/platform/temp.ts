import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs `task` with a fresh private folder under the OS temp dir and deletes the folder and all
 * it holds afterwards, whatever happens: patient recordings never outlive their request.
 */
export async function withTempDir<T>(prefix: string, task: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await task(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
