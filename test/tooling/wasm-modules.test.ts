import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/lib/paths.js';
import { WASM_MODULES, assembledModule } from '../../scripts/lib/wasm.js';

describe('the WebAssembly carried in TypeScript modules', () => {
  it.each(WASM_MODULES)('$module is $wat assembled (npm run wasm:build)', async (wasm) => {
    expect(await readFile(join(REPO_ROOT, wasm.module), 'utf8')).toBe(await assembledModule(wasm));
  });
});
