import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { settingsByEnv } from '../../src/config/define.js';
import { configurationReference } from '../../src/config/reference.js';
import { SETTINGS } from '../../src/config/settings.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

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
    const reference = configurationReference(SETTINGS, 'src/config/settings.ts');
    for (const env of settingsByEnv(SETTINGS).keys()) expect(reference).toContain(`| \`${env}\` |`);
    expect(reference).toContain('| `LLM_MAX_RUNNING` | `LLM_PARALLEL` |');
    expect(reference).toContain('| `BODY_LIMIT_BYTES` | `2097152` (2 MiB) |');
    expect(reference).toContain('| `MODELS_VERIFY` | `on` |');
  });

  it("is what the operator's guide shows (npm run docs:config -- --check)", async () => {
    await expect(
      run(process.execPath, ['--import', 'tsx', 'scripts/docs-config.ts', '--check'], { cwd: ROOT }),
    ).resolves.toBeDefined();
  });
});
