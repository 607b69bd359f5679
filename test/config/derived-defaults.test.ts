import { describe, expect, it } from 'vitest';
import { isComputed, loadSettings, section, setting, settingsByEnv, types, type DerivedDefault } from '../../src/config/define.js';
import { SETTINGS } from '../../src/config/settings.js';

const workers = setting({ env: 'WORKERS', type: types.positiveInt, default: 4, doc: 'workers' });

describe('a derived default names its source by the setting itself', () => {
  it('a source named by a string, or a source that is not a number, does not compile', () => {
    const misspelt: DerivedDefault<number> = {
      // @ts-expect-error a name is not a setting: a misspelt or removed source would go unnoticed
      from: 'WORKRES',
      value: (n) => n,
      doc: (source) => source,
    };
    const notANumber: DerivedDefault<string> = {
      // @ts-expect-error HOST holds text, which a derived default cannot be computed from
      from: SETTINGS.server.settings.host,
      value: (host) => String(host),
      doc: (source) => source,
    };
    expect([typeof misspelt.from, typeof notANumber.from]).toEqual(['string', 'object']);
  });

  it('is computed from the value its source is given, and documented under its name', () => {
    const table = {
      pool: section('Pool', {
        workers,
        maxRunning: setting({
          env: 'MAX_RUNNING',
          type: types.positiveInt,
          default: { from: workers, value: (n) => n * 2, doc: (source) => `2 × ${source}` },
          doc: 'at once',
        }),
      }),
    };
    expect(loadSettings(table, {}).pool.maxRunning).toBe(8);
    expect(loadSettings(table, { WORKERS: '3' }).pool.maxRunning).toBe(6);
    const derived = table.pool.settings.maxRunning.default;
    expect(isComputed(derived) && 'from' in derived ? derived.doc(derived.from.env) : undefined).toBe('2 × WORKERS');
  });

  it("every derived default of the gateway's table takes its source from that table", () => {
    const byEnv = settingsByEnv(SETTINGS);
    const sources = [...byEnv.values()].flatMap(({ default: fallback }) => (isComputed(fallback) && 'from' in fallback ? [fallback.from] : []));
    expect(sources.map((source) => source.env).sort()).toEqual(['ASR_MAX_RUNNING', 'FETCH_MAX_BYTES', 'LLM_MAX_RUNNING', 'LLM_PARALLEL', 'OCR_WORKERS', 'PORT']);
    for (const source of sources) expect(byEnv.get(source.env)).toBe(source);
  });
});
