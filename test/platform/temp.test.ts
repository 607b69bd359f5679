import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, sweepTempDirs, withTempDir } from '../../src/platform/temp.js';

let dir: string;
let sleeper: ChildProcess | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'temp-sweep-test-'));
});

afterEach(async () => {
  sleeper?.kill('SIGKILL');
  sleeper = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** A PID no process has now: a child's that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid!;
}

async function livePid(): Promise<number> {
  sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
  await once(sleeper, 'spawn');
  return sleeper.pid!;
}

/** The name this process gives a temp folder, with another owner PID or host put in. */
async function folderName(owner: { pid?: number; host?: string } = {}): Promise<string> {
  const real = await makeTempDir('voice');
  await rm(real, { recursive: true });
  const [, host] = /@([\w.-]+)-[A-Za-z0-9]{6}$/.exec(basename(real))!;
  return basename(real).replace(`-${process.pid}@${host}-`, `-${owner.pid ?? process.pid}@${owner.host ?? host}-`);
}

/** A folder as a request leaves it: with the recording inside. */
async function leaveFolder(name: string): Promise<string> {
  const path = join(dir, name);
  await mkdir(path);
  await writeFile(join(path, 'recording'), 'audio');
  return path;
}

describe('the temp folders', () => {
  it('are private, named for this process, and gone after their task, whatever happens', async () => {
    let seen = '';
    await expect(
      withTempDir('voice', async (folder) => {
        seen = folder;
        expect((await stat(folder)).mode & 0o777).toBe(0o700);
        throw new Error('the task failed');
      }),
    ).rejects.toThrow('the task failed');

    expect(basename(seen)).toMatch(new RegExp(`^mdt-voice-${process.pid}@[\\w.-]+-[A-Za-z0-9]{6}$`));
    await expect(stat(seen)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('sweepTempDirs', () => {
  it('deletes the folders of a process that is gone, with what they hold', async () => {
    await leaveFolder(await folderName({ pid: await deadPid() }));

    expect(await sweepTempDirs(dir)).toBe(1);
    expect(await readdir(dir)).toEqual([]);
  });

  it("keeps a running process's folders: a replica beside this one", async () => {
    const name = await folderName({ pid: await livePid() });
    await leaveFolder(name);

    expect(await sweepTempDirs(dir)).toBe(0);
    expect(await readdir(dir)).toEqual([name]);
  });

  it("keeps this process's own folders, but not those older than this process (a restart with the same PID)", async () => {
    const mine = await folderName();
    await leaveFolder(mine);
    const previous = mine.replace(/-[A-Za-z0-9]{6}$/, '-prev00');
    const before = new Date(performance.timeOrigin - 60_000);
    await utimes(await leaveFolder(previous), before, before);

    expect(await sweepTempDirs(dir)).toBe(1);
    expect(await readdir(dir)).toEqual([mine]);
  });

  it("keeps another host's folders (its PIDs are not this host's) and every name it did not make", async () => {
    const dead = await deadPid();
    const names = [
      await folderName({ pid: dead, host: 'another-host' }),
      `mdt-selftest-${dead}`,
      `gateway-e2e-data-${dead}`,
      (await folderName({ pid: dead })).replace('mdt-', 'xmdt-'),
    ];
    for (const name of names) await leaveFolder(name);

    expect(await sweepTempDirs(dir)).toBe(0);
    expect((await readdir(dir)).sort()).toEqual(names.sort());
  });
});
