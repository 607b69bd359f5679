import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SupervisedModule } from '../../platform/process/index.js';

/**
 * Where the worker module is and how to start it: next to this module, as `.js` when running
 * from dist/, as `.ts` from source (tests, `tsx src/main.ts`), with tsx registered in the child
 * unless the parent's own flags already do.
 */
export function workerEntry(): SupervisedModule {
  const fromSource = import.meta.url.endsWith('.ts');
  const path = fileURLToPath(new URL(fromSource ? './worker.ts' : './worker.js', import.meta.url));
  // A debugger flag would make the child fight the parent for the inspector port.
  const inherited = process.execArgv.filter((arg) => !/^--inspect|^--debug/.test(arg));
  if (!fromSource) return { path, execArgv: inherited };
  const tsxLoaded = inherited.some((arg) => /[\\/]tsx[\\/]|^tsx$/.test(arg));
  return { path, execArgv: tsxLoaded ? inherited : [...inherited, '--import', tsxLoaderUrl()] };
}

/** tsx's ESM loader (its package's "." export), located from this module (vitest has no import.meta.resolve). */
function tsxLoaderUrl(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('tsx/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports?: Record<string, unknown> };
  const entry = manifest.exports?.['.'];
  if (typeof entry !== 'string') throw new Error('cannot find the tsx loader to run the LLM worker from source');
  return pathToFileURL(resolve(dirname(manifestPath), entry)).href;
}
