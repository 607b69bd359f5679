/**
 * A throwaway PostgreSQL server for tests: Debian's `postgresql` package, a fresh cluster in a
 * temporary folder, listening on a free loopback port with trust authentication, removed when
 * stopped. PostgreSQL refuses to run as root, so as root the cluster is run as the `postgres`
 * user (the Debian package creates it) through `setpriv`, which execs in place: the child's pid
 * is the server's, and a signal reaches it.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { onFreePort } from './processes.js';

const run = promisify(execFile);
const DEBIAN_ROOT = '/usr/lib/postgresql';
const SERVICE_USER = 'postgres';
const SUPERUSER = 'gateway';
const START_WITHIN_MS = 30_000;

/** The newest Debian PostgreSQL's bin folder, or null. */
/** Why the shared-store suites cannot run here (Debian's `postgresql` package missing), or null: for describeWithTools. */
export function postgresMissing(): string | null {
  return postgresBinDir() === null ? 'PostgreSQL server binaries (apt-get install postgresql)' : null;
}

export function postgresBinDir(): string | null {
  if (!existsSync(DEBIAN_ROOT)) return null;
  const versions = readdirSync(DEBIAN_ROOT)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(DEBIAN_ROOT, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(DEBIAN_ROOT, versions[0], 'bin');
}

const asRoot = () => userInfo().uid === 0;

interface UserIds {
  uid: number;
  gid: number;
}

async function serviceUserIds(): Promise<UserIds> {
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', SERVICE_USER]), run('id', ['-g', SERVICE_USER])]);
  return { uid: Number(uid), gid: Number(gid) };
}

/** Runs a PostgreSQL program as a user it accepts (`user` when root). */
function command(binDir: string, program: string, args: string[], user: UserIds | null): [string, string[]] {
  const path = join(binDir, program);
  if (user === null) return [path, args];
  return ['setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--', path, ...args]];
}

export interface TestPostgres {
  /** `postgres://gateway@127.0.0.1:<port>/postgres` */
  url: string;
  /** A new empty database on this server; its URL. */
  createDatabase(): Promise<string>;
  /**
   * Stops the server, keeping its data: `fast` ends every session first (a restart), `immediate`
   * quits at once like a crash (recovered from the WAL when it starts again).
   */
  halt(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts the halted server again, on the same port with the same data. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

let databases = 0;

/**
 * initdb + postgres on a free loopback port. Durability is off (a test cluster is thrown away)
 * unless `durable`: benchmarks compare it with SQLite's synchronous=FULL, so it commits to disk,
 * and a test that crashes the server (`halt('immediate')`) must keep what it acknowledged.
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<TestPostgres> {
  const binDir = postgresBinDir();
  if (binDir === null) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  const dir = await mkdtemp(join(tmpdir(), 'gateway-pg-'));
  const dataDir = join(dir, 'data');
  const user = asRoot() ? await serviceUserIds() : null;
  if (user) await chown(dir, user.uid, user.gid);
  const initArgs = ['-D', dataDir, '-U', SUPERUSER, '--auth=trust', '-E', 'UTF8', '--no-sync', '--locale=C'];
  await run(...command(binDir, 'initdb', initArgs, user));
  const durability = options.durable ? [] : ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];
  const launch = async (port: number) => {
    const settings = ['listen_addresses=127.0.0.1', `port=${port}`, `unix_socket_directories=${dir}`, 'max_connections=200', ...durability];
    const [postgres, args] = command(binDir, 'postgres', ['-D', dataDir, ...settings.flatMap((setting) => ['-c', setting])], user);
    const started = spawn(postgres, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    started.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString('utf8')).slice(-4000)));
    const address = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
    try {
      await waitUntilAccepting(address, started);
      return { server: started, url: address };
    } catch (error) {
      await stopServer(started);
      throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${log}`);
    }
  };
  const first = await onFreePort(launch).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  const url = first.url;
  let server = first.server;
  return {
    url,
    async createDatabase() {
      const name = `test_${process.pid}_${++databases}`;
      await withClient(url, (client) => client.query(`CREATE DATABASE ${name}`));
      return url.replace(/\/postgres$/, `/${name}`);
    },
    async halt(mode = 'fast') {
      await stopServer(server, mode);
    },
    async resume() {
      server = (await launch(Number(new URL(url).port))).server;
    },
    async stop() {
      await stopServer(server);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function waitUntilAccepting(url: string, server: ChildProcess): Promise<void> {
  const deadline = Date.now() + START_WITHIN_MS;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`postgres exited with ${server.exitCode}`);
    try {
      await withClient(url, (client) => client.query('SELECT 1'));
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** PostgreSQL's shutdown modes, by the signal that asks for them. */
const SHUTDOWN_SIGNALS = { fast: 'SIGINT', immediate: 'SIGQUIT' } as const;

/** Fast shutdown: sessions are ended, the server exits at once. Immediate: it quits without ending them. */
async function stopServer(server: ChildProcess, mode: keyof typeof SHUTDOWN_SIGNALS = 'fast'): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = once(server, 'exit');
  server.kill(SHUTDOWN_SIGNALS[mode]);
  await exited;
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
