/**
 * tsc compiles only TypeScript: `npm run build` copies the console's page, script and styles
 * next to the compiled plugin, which reads them from there (the Docker images run the build
 * after copying src/). CI builds on install; locally, a failure here means dist/ is stale.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/lib/paths.js';

const SOURCE = join(REPO_ROOT, 'src/http/console/assets');
const BUILT = join(REPO_ROOT, 'dist/http/console/assets');

describe('npm run build', () => {
  it('leaves the console assets beside the compiled plugin, as they are in src/', () => {
    expect(existsSync(join(REPO_ROOT, 'dist/http/console/index.js')), 'dist/ is not built: run npm run build').toBe(true);
    const names = readdirSync(SOURCE).sort();
    expect(readdirSync(BUILT).sort()).toEqual(names);
    for (const name of names) {
      expect(readFileSync(join(BUILT, name)).equals(readFileSync(join(SOURCE, name))), `${name} differs: run npm run build`).toBe(true);
    }
  });
});
