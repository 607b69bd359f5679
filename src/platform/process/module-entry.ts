/**
 * How to start a module that sits next to the caller in a child process or a worker thread: the
 * built `.js` when the gateway runs from dist/, the `.ts` source with tsx registered when it
 * runs from source (tests, `npm run dev`).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { SupervisedModule } from './supervisor.js';

const fromSource = (callerUrl: string) => callerUrl.endsWith('.ts');

function siblingPath(callerUrl: string, name: string): string {
  return fileURLToPath(new URL(`./${name}.${fromSource(callerUrl) ? 'ts' : 'js'}`, callerUrl));
}

/** A module for child_process.fork, with the flags a child needs to load it. */
export function siblingModule(callerUrl: string, name: string): SupervisedModule {
  const path = siblingPath(callerUrl, name);
  // A debugger flag would make the child fight the parent for the inspector port.
  const inherited = process.execArgv.filter((arg) => !/^--inspect|^--debug/.test(arg));
  if (!fromSource(callerUrl)) return { path, execArgv: inherited };
  const tsxLoaded = inherited.some((arg) => /[\\/]tsx[\\/]|^tsx$/.test(arg));
  return { path, execArgv: tsxLoaded ? inherited : [...inherited, '--import', tsxExport('.')] };
}

/** A worker thread running the module; from source, a bootstrap registers tsx first (workers take no --import). */
export function siblingWorker(callerUrl: string, name: string, options: WorkerOptions): Worker {
  const path = siblingPath(callerUrl, name);
  if (!fromSource(callerUrl)) return new Worker(path, options);
  const bootstrap = `import(${JSON.stringify(tsxExport('./esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(pathToFileURL(path).href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/** The file URL of one of tsx's ESM exports, located from this module (vitest has no import.meta.resolve). */
function tsxExport(subpath: '.' | './esm/api'): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('tsx/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports?: Record<string, unknown> };
  const entry = manifest.exports?.[subpath];
  const file = typeof entry === 'string' ? entry : (entry as { import?: { default?: string } } | undefined)?.import?.default;
  if (typeof file !== 'string') throw new Error(`cannot find tsx's ${subpath} export to run a worker from source`);
  return pathToFileURL(resolve(dirname(manifestPath), file)).href;
}
