import { describe, expect, it } from 'vitest';
import { deprecatedSettings } from '../../src/config/define.js';
import { configDeprecations, loadConfig } from '../../src/config/index.js';
import { configurationReference } from '../../src/config/reference.js';
import { SETTINGS } from '../../src/config/settings.js';
import { loadReceiverConfig, RECEIVER_SETTINGS } from '../../src/receiver/settings.js';

describe('settings renamed in 0.2 are still read under their old names, with a warning', () => {
  it.each([
    ['ASR_CONCURRENCY', 'ASR_MAX_RUNNING', (env: NodeJS.ProcessEnv) => loadConfig(env).asr.maxRunning],
    ['ADVICE_CONCURRENCY', 'ADVICE_MAX_RUNNING', (env: NodeJS.ProcessEnv) => loadConfig(env).advice.maxRunning],
  ])('%s is read as %s', (formerly, env, read) => {
    expect(read({ [formerly]: '3' })).toBe(3);
    expect(configDeprecations({ [formerly]: '3' })).toEqual([`${formerly} is now ${env}: rename it (the old name is read until 0.3)`]);
  });

  it('the old name counts as the new one for the defaults derived from it', () => {
    expect(loadConfig({ ASR_CONCURRENCY: '2' }).asr.threads).toBe(loadConfig({ ASR_MAX_RUNNING: '2' }).asr.threads);
  });

  it('the new name wins when both are set, and the warning says the old one is ignored', () => {
    expect(loadConfig({ ASR_CONCURRENCY: '3', ASR_MAX_RUNNING: '2' }).asr.maxRunning).toBe(2);
    expect(configDeprecations({ ASR_CONCURRENCY: '3', ASR_MAX_RUNNING: '2' })).toEqual([
      'ASR_CONCURRENCY is now ASR_MAX_RUNNING, which is also set: ASR_CONCURRENCY is ignored; remove it',
    ]);
  });

  it('a bad value under the old name is reported under the name it was read from', () => {
    expect(() => loadConfig({ ASR_CONCURRENCY: '0' })).toThrow(/ASR_CONCURRENCY: /);
  });

  it('the reference names the old name beside the new', () => {
    expect(configurationReference(SETTINGS)).toMatch(/\| `ASR_MAX_RUNNING` \|.*Named `ASR_CONCURRENCY` before 0\.2/);
  });
});

describe('booleans are written true or false; the spellings of before 0.2 are read, with a warning', () => {
  it.each([
    ['MODELS_VERIFY', 'off', 'false', (env: NodeJS.ProcessEnv) => loadConfig(env).models.verify],
    ['MODELS_VERIFY', 'on', 'true', (env: NodeJS.ProcessEnv) => loadConfig(env).models.verify],
    ['FETCH_ALLOW_LOOPBACK', '1', 'true', (env: NodeJS.ProcessEnv) => loadConfig(env).fetch.allowLoopback],
    ['FETCH_ALLOW_LOOPBACK', '0', 'false', (env: NodeJS.ProcessEnv) => loadConfig(env).fetch.allowLoopback],
    ['ASR_TEMPERATURE_FALLBACK', '0', 'false', (env: NodeJS.ProcessEnv) => loadConfig(env).asr.temperatureFallback],
  ])('%s=%s reads as %s', (env, old, canonical, read) => {
    expect(read({ [env]: old })).toBe(canonical === 'true');
    expect(read({ [env]: canonical })).toBe(canonical === 'true');
    expect(configDeprecations({ [env]: old })).toEqual([`${env}=${old} is now written ${env}=${canonical} (the old spelling is read until 0.3)`]);
  });

  it("the receiver's boolean too (RECEIVER_ALLOW_UNSIGNED)", () => {
    expect(loadReceiverConfig({ RECEIVER_ALLOW_UNSIGNED: '1' }).allowUnsigned).toBe(true);
    expect(deprecatedSettings(RECEIVER_SETTINGS, { RECEIVER_ALLOW_UNSIGNED: '1' })).toEqual([
      'RECEIVER_ALLOW_UNSIGNED=1 is now written RECEIVER_ALLOW_UNSIGNED=true (the old spelling is read until 0.3)',
    ]);
  });

  it('the reference lists only true and false', () => {
    expect(configurationReference(SETTINGS)).toContain('| `MODELS_VERIFY` | `true` | `true` `false` |');
  });
});

it('an environment written as 0.2 writes it warns of nothing', () => {
  expect(configDeprecations({})).toEqual([]);
  expect(configDeprecations({ ASR_MAX_RUNNING: '2', ADVICE_MAX_RUNNING: '1', MODELS_VERIFY: 'false', FETCH_ALLOW_LOOPBACK: 'true' })).toEqual([]);
});
