import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { settingsByEnv } from '../../src/config/define.js';
import { configurationReference } from '../../src/config/reference.js';
import { SETTINGS } from '../../src/config/settings.js';
import { REPO_ROOT } from '../../scripts/lib/paths.js';

const run = promisify(execFile);

describe('the settings table', () => {
  it('declares every variable once', () => {
    const declared = Object.values(SETTINGS).flatMap((group) => Object.values(group.settings).map((setting) => setting.env));
    expect(settingsByEnv(SETTINGS).size).toBe(declared.length);
  });

  it('gives every setting a meaning and says what it accepts', () => {
    for (const setting of settingsByEnv(SETTINGS).values()) {
      expect(setting.doc.length, setting.env).toBeGreaterThan(2);
      expect(setting.type.values.length, setting.env).toBeGreaterThan(2);
    }
  });

  it('renders each variable as one row of the reference, defaults in words where they are computed', () => {
    const reference = configurationReference(SETTINGS);
    for (const env of settingsByEnv(SETTINGS).keys()) expect(reference).toContain(`| \`${env}\` |`);
    expect(reference).toContain('| `LLM_MAX_RUNNING` | `LLM_PARALLEL` |');
    expect(reference).toContain('| `BODY_LIMIT_BYTES` | `2097152` (2 MiB) |');
    expect(reference).toContain('| `MODELS_VERIFY` | `true` |');
  });

});

describe('the documentation generated from code', () => {
  it("is up to date: the operator's guide §5 and docs/errors.md (npm run docs:generate -- --check)", async () => {
    await expect(
      run(process.execPath, ['--import', 'tsx', 'scripts/docs-generate.ts', '--check'], { cwd: REPO_ROOT }),
    ).resolves.toBeDefined();
  });
});
