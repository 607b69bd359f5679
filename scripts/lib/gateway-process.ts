/**
 * The compiled gateway as its own process, as production runs it (`node dist/main.js`; tsx would
 * add its compiler and its cache): for the soak, and for benchmarks that charge the gateway only
 * with what its own process spends, not with the client's work or that of whatever else the
 * benchmark runs in its process.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './paths.js';
import { onFreePort, until } from './processes.js';

export interface GatewayProcess {
  child: ChildProcess;
  /** http://127.0.0.1:port */
  baseUrl: string;
  /** CPU time the process has spent so far, all its threads together, in ms (Linux: /proc). */
  cpuMs(): number;
  /** SIGTERM, and waits until it has exited. */
  stop(): Promise<void>;
}

/** Compiles src/ into dist/ (`npm run build`). */
export function buildGateway(): void {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' });
}

/** The kernel counts a process's CPU time in ticks of 1/100 s (USER_HZ, fixed on Linux). */
const MS_PER_TICK = 10;

/** utime + stime of the process, all its threads, read from /proc/<pid>/stat. */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command's name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
}

async function statusOf(url: string): Promise<number> {
  return fetch(url).then(
    (response) => response.status,
    () => 0,
  );
}

/**
 * The compiled gateway (build it first) on a free loopback port with these settings over this
 * process's environment, once it answers /healthz (within `answerWithinMs`); on another port when
 * it found its port taken (it exits, saying EADDRINUSE on stderr). Its stderr is passed on.
 */
export async function startGatewayProcess(env: Record<string, string>, answerWithinMs = 60_000): Promise<GatewayProcess> {
  return onFreePort(async (port) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'main.js')], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let errors = '';
    let exited = false;
    child.stderr!.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      errors = (errors + chunk.toString('utf8')).slice(-4000);
    });
    const closed = new Promise<void>((done) =>
      child.once('close', () => {
        exited = true;
        done();
      }),
    );
    const baseUrl = `http://127.0.0.1:${port}`;
    const answered = await until(async () => exited || (await statusOf(`${baseUrl}/healthz`)) === 200, answerWithinMs);
    if (answered && !exited) {
      const stop = async () => {
        if (!exited) child.kill('SIGTERM');
        await closed;
      };
      return { child, baseUrl, cpuMs: () => cpuMsOf(child.pid!), stop };
    }
    child.kill('SIGKILL');
    throw new Error(`the gateway did not answer /healthz within ${answerWithinMs / 1000} s: ${errors}`);
  });
}

/** Waits until the gateway's /readyz answers 200: every engine it was configured with has loaded. */
export async function untilReady(gateway: GatewayProcess, withinMs: number): Promise<void> {
  if (!(await until(async () => (await statusOf(`${gateway.baseUrl}/readyz`)) === 200, withinMs))) {
    throw new Error(`the gateway was not ready within ${withinMs / 1000} s`);
  }
}
