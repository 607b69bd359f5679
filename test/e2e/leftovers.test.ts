/**
 * Nothing left behind: the real gateway process, killed with SIGKILL while whisper-cli transcribes
 * a recording, leaves the recording in its temp folders; restarted, it deletes them, and the
 * files a put() killed between its file and its row leaves. Its data folder and database are its
 * owner's alone, though the folder was created 0755 as the image creates /data.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FAST_ASR_ENV, asrToolsMissing, writeLongRecording } from '../../scripts/lib/audio.js';
import { startFileServer, type FileServer } from '../../scripts/lib/file-server.js';
import { postJson } from '../../scripts/lib/gateway.js';
import { ensureWhisperTestModel } from '../../scripts/lib/models/whisper-model.js';
import { TEST_MODELS_DIR } from '../../scripts/lib/paths.js';
import { NEUTRAL_GATEWAY_ENV, onFreePort, spawnFromSource, until, waitForLine } from '../../scripts/lib/processes.js';
import { describeWithTools } from '../support/tools.js';

interface Gateway {
  child: ChildProcess;
  port: number;
  stdout: () => string;
}

const gateways: ChildProcess[] = [];

function killNow(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Processes whose command line names `folder` and whisper: the whisper-cli a gateway runs on a file there. */
async function whisperRunningIn(folder: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const commandLine = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (commandLine.includes(folder) && commandLine.includes('whisper')) pids.push(Number(entry));
  }
  return pids;
}

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

/** The gateway's temp folders in `dir` (tsx, which runs it from source, keeps its cache there too). */
const gatewayFolders = async (dir: string) => (await readdir(dir)).filter((name) => name.startsWith('mdt-')).sort();

describeWithTools('a gateway killed mid-work leaves nothing behind once restarted', await asrToolsMissing(), () => {
  let dir: string;
  let tempDir: string;
  let dataDir: string;
  let files: FileServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leftovers-e2e-'));
    tempDir = join(dir, 'tmp');
    dataDir = join(dir, 'data');
    await mkdir(tempDir);
    await mkdir(dataDir);
    await chmod(dataDir, 0o755); // as the image creates /data
    await writeLongRecording(join(dir, 'long.flac'));
    files = await startFileServer((_request, response) => void createReadStream(join(dir, 'long.flac')).pipe(response));
    const model = await ensureWhisperTestModel({ modelsDir: TEST_MODELS_DIR });
    env = {
      ...NEUTRAL_GATEWAY_ENV,
      ...FAST_ASR_ENV,
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      TMPDIR: tempDir,
      MODELS_DIR: dirname(model.path),
      WHISPER_MODEL: basename(model.path),
      FETCH_ALLOW_LOOPBACK: 'true',
      LOG_LEVEL: 'info',
    };
  }, 120_000);

  afterAll(async () => {
    for (const child of gateways) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (tempDir) for (const pid of await whisperRunningIn(tempDir)) killNow(pid);
    await files?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const startGateway = (settings: Record<string, string>): Promise<Gateway> =>
    onFreePort(async (port) => {
      const child = spawnFromSource('src/main.ts', { ...settings, PORT: String(port) });
      gateways.push(child);
      let stdout = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      await waitForLine(child, 'gateway started');
      return { child, port, stdout: () => stdout };
    });

  const killed = async ({ child }: Gateway) => {
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  };

  it('sweeps the recordings of a transcription killed mid-run and the files of a killed put(), and keeps the rest', async () => {
    const first = await startGateway(env);
    expect(await until(async () => first.stdout().includes('asr engine ready'), 60_000)).toBe(true);
    void postJson(`http://127.0.0.1:${first.port}/ai/v1/asr`, { request_id: 'killed', voice_url: files.url('/long.flac') }).catch(() => undefined);
    expect(await until(async () => (await whisperRunningIn(tempDir)).length > 0, 60_000), 'whisper-cli transcribing').toBe(true);

    // Mid-transcription: the recording and its decoded audio lie in the gateway's temp folders, its own alone.
    const folders = await gatewayFolders(tempDir);
    const owned = new RegExp(`^mdt-(voice|asr)-${first.child.pid}@[\\w.-]+-[A-Za-z0-9]{6}$`);
    expect(folders.map((name) => owned.exec(name)?.[1])).toEqual(['asr', 'voice']);
    const voiceFolder = join(tempDir, folders.find((name) => name.startsWith('mdt-voice-'))!);
    expect(await modeOf(join(voiceFolder, 'recording'))).toBe(0o600); // umask 077: the fetcher gives no mode
    expect(await modeOf(dataDir)).toBe(0o700);
    for (const file of ['gateway.sqlite', 'gateway.sqlite-wal', 'gateway.sqlite-shm', 'file-signing.key']) {
      expect(await modeOf(join(dataDir, file)), file).toBe(0o600);
    }

    await killed(first);
    // The whisper-cli it ran lives on (nothing forwards a SIGKILL); it is ended as its container's end would.
    for (const pid of await whisperRunningIn(tempDir)) killNow(pid);

    // A put() killed between its file and its row (written here as it leaves them: the window is
    // too short to hit by timing), a stored blob with its row, and a live neighbour's temp folder.
    const blobs = join(dataDir, 'blobs');
    const [halfWritten, withoutRow, stored] = ['.AAAAAAAAAAAAAAAAAAAAAAAA.tmp', 'BBBBBBBBBBBBBBBBBBBBBBBB', 'CCCCCCCCCCCCCCCCCCCCCCCC'];
    for (const name of [halfWritten, withoutRow, stored]) await writeFile(join(blobs, name), 'bytes');
    const database = new Database(join(dataDir, 'gateway.sqlite'));
    database
      .prepare('INSERT INTO blobs (key, content_type, size, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
      .run(stored, 'application/pdf', 5, Date.now(), Date.now() + 60_000);
    database.close();
    const neighbour = folders[0]!.replace(`-${first.child.pid}@`, `-${process.pid}@`);
    await mkdir(join(tempDir, neighbour));

    const second = await startGateway({ ...env, WHISPER_MODEL: '' }); // no warm-up folder of its own to wait for
    const sweep = second
      .stdout()
      .split('\n')
      .find((line) => line.includes('deleted what a stopped gateway left behind'));
    expect(JSON.parse(sweep ?? '{}')).toMatchObject({ temp_folders: 2, blob_files: 2 });
    expect(sweep).not.toContain(tempDir);

    expect(await gatewayFolders(tempDir)).toEqual([neighbour]);
    expect(await readdir(blobs)).toEqual([stored]);
    expect(await modeOf(dataDir)).toBe(0o700);
    expect(await modeOf(blobs)).toBe(0o700);
    await killed(second);
  }, 180_000);
});
