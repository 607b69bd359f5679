/** Assembles each hand-written .wat into the TypeScript module the gateway loads it from (see scripts/lib/wasm.ts). */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from './lib/paths.js';
import { WASM_MODULES, assembledModule } from './lib/wasm.js';

for (const wasm of WASM_MODULES) {
  await writeFile(join(REPO_ROOT, wasm.module), await assembledModule(wasm));
  console.log(`${wasm.wat} → ${wasm.module}`);
}
