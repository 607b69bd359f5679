import { describe, expect, it } from 'vitest';
import { fetchAllowlistWarning, isLoopbackHost, runsInProduction } from '../../src/config/exposure.js';
import { loadConfig } from '../../src/config/index.js';

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]'])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each(['0.0.0.0', '::', '10.0.0.5', 'gateway.hospital.local', '127.example', '128.0.0.1'])('%s is not', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('runsInProduction', () => {
  it('is NODE_ENV=production, or a listen address other machines reach', () => {
    expect(runsInProduction('127.0.0.1', { NODE_ENV: 'production' })).toBe(true);
    expect(runsInProduction('0.0.0.0', {})).toBe(true);
    expect(runsInProduction('127.0.0.1', {})).toBe(false);
    expect(runsInProduction('::1', { NODE_ENV: 'development' })).toBe(false);
  });
});

describe('fetchAllowlistWarning', () => {
  it('warns about an empty FETCH_ALLOW_HOSTS in production, naming the setting', () => {
    expect(fetchAllowlistWarning(loadConfig({}), {})).toMatch(/^FETCH_ALLOW_HOSTS is not set: /);
    expect(fetchAllowlistWarning(loadConfig({ HOST: '127.0.0.1' }), { NODE_ENV: 'production' })).toMatch(/FETCH_ALLOW_HOSTS/);
  });

  it('is quiet with an allowlist, and on a developer machine', () => {
    expect(fetchAllowlistWarning(loadConfig({ FETCH_ALLOW_HOSTS: 'store.hospital.local' }), { NODE_ENV: 'production' })).toBeNull();
    expect(fetchAllowlistWarning(loadConfig({ HOST: '127.0.0.1' }), {})).toBeNull();
  });
});
