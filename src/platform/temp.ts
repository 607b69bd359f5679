import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The gateway's temp folders are named `mdt-<purpose>-<pid>@<host>-XXXXXX`, so that at start a
 * gateway can tell the folders a crashed gateway left from those of one still running beside it
 * (replicas on one host sharing the temp dir).
 */
const OWNED_FOLDER = /^mdt-[a-z]+(?:-[a-z]+)*-(\d+)@([\w.-]+)-[A-Za-z0-9]{6}$/;

/** A host name as it may stand in a folder name. */
const thisHost = (): string => hostname().replace(/[^\w.-]/g, '_');

/** A fresh private (0700) folder under the OS temp dir, named for this process; `purpose` is lowercase words joined by `-`. */
export async function makeTempDir(purpose: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `mdt-${purpose}-${process.pid}@${thisHost()}-`));
}

/**
 * Runs `task` with a fresh private folder under the OS temp dir and deletes the folder and all
 * it holds afterwards, whatever happens: patient recordings never outlive their request (and
 * when the process is killed, the next start sweeps them: sweepTempDirs).
 */
export async function withTempDir<T>(purpose: string, task: (dir: string) => Promise<T>): Promise<T> {
  const dir = await makeTempDir(purpose);
  try {
    return await task(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/**
 * Whether a folder of this host's was left by a process that is gone: its PID is not running, or
 * is this process's own and the folder is older than this process (a container restarted
 * with the same PID). A folder of another host (a container with its own PID numbering sharing
 * the temp dir) is never judged.
 */
async function isLeftBehind(path: string, pid: number, host: string): Promise<boolean> {
  if (host !== thisHost()) return false;
  if (pid !== process.pid) return !isAlive(pid);
  const { mtimeMs } = await stat(path);
  return mtimeMs < performance.timeOrigin;
}

/** Deletes the temp folders that gateways no longer running on this host left (a SIGKILL, an OOM); returns how many. */
export async function sweepTempDirs(dir: string = tmpdir()): Promise<number> {
  let swept = 0;
  for (const name of await readdir(dir)) {
    const owner = OWNED_FOLDER.exec(name);
    if (owner === null) continue;
    const path = join(dir, name);
    const leftBehind = await isLeftBehind(path, Number(owner[1]), owner[2]!).catch(() => false); // gone meanwhile
    if (!leftBehind) continue;
    // Another user's folder in a shared temp dir may not be ours to delete: left for its owner.
    const deleted = await rm(path, { recursive: true, force: true }).then(
      () => true,
      () => false,
    );
    if (deleted) swept++;
  }
  return swept;
}
