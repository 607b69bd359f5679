import { readFile, readdir } from 'node:fs/promises';

export interface ChildMemory {
  pid: number;
  /** The kernel's name of the process: `node` (the LLM process), `whisper-cli`, `ffmpeg`. */
  command: string;
  residentBytes: number;
}

/**
 * The direct child processes of `parentPid` with their resident memory, read from /proc
 * (Linux); empty where there is no /proc. A child that exits while it is read is left out.
 */
export async function childProcessMemory(parentPid = process.pid): Promise<ChildMemory[]> {
  let threads: string[];
  try {
    threads = await readdir(`/proc/${parentPid}/task`);
  } catch {
    return [];
  }
  // A child is listed under the thread that started it.
  const lists = await Promise.all(threads.map((thread) => readText(`/proc/${parentPid}/task/${thread}/children`)));
  const pids = new Set(lists.flatMap((list) => (list ?? '').split(' ').filter(Boolean).map(Number)));
  const children = await Promise.all([...pids].map(memoryOf));
  return children.filter((child): child is ChildMemory => child !== undefined);
}

/** The resident memory of process `pid`, read from /proc (Linux); undefined where it cannot be read. */
export async function residentBytes(pid: number): Promise<number | undefined> {
  return (await memoryOf(pid))?.residentBytes;
}

async function memoryOf(pid: number): Promise<ChildMemory | undefined> {
  const status = await readText(`/proc/${pid}/status`);
  if (status === undefined) return undefined;
  const command = /^Name:\s*(.+)$/m.exec(status)?.[1]?.trim() ?? 'unknown';
  const residentKib = Number(/^VmRSS:\s*(\d+) kB$/m.exec(status)?.[1] ?? 0);
  return { pid, command, residentBytes: residentKib * 1024 };
}

function readText(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').catch(() => undefined);
}
