/**
 * The vocabulary of the settings table (settings.ts): value types that parse an environment
 * variable and say in words what they accept, settings, sections, and the loader that turns a
 * table and an environment into a typed configuration.
 */
import { z } from 'zod';
import { parseTokenList, type Role } from './access.js';
import { MIN_WEBHOOK_KEY_BYTES, parseWebhookSecret } from './webhook-secret.js';

/** How one environment variable is read: its parser and, for the reference, what it accepts. */
export interface ValueType<T> {
  schema: z.ZodType<T>;
  /** What the variable accepts, in the reference's words. */
  values: string;
  /** Spellings still read for one release, each with the one to write instead. */
  deprecatedSpellings?: Readonly<Record<string, string>>;
}

/** A default computed when the process starts (e.g. from the machine's cores). */
export interface ComputedDefault<T> {
  value: () => T;
  doc: string;
}

/**
 * A default taken from another (numeric, always set) setting, e.g. a limiter sized like its pool.
 * `from` is that setting itself, not its name, so a removed or misspelt source does not compile.
 */
export interface DerivedDefault<T> {
  from: Setting<number, true>;
  value: (source: number) => T;
  /** The default in the reference's words, given the source's variable name. */
  doc: (sourceEnv: string) => string;
}

export type Default<T> = T | ComputedDefault<T> | DerivedDefault<T>;

interface SettingSpec<T> {
  env: string;
  /** The variable's name before 0.2: still read when `env` is unset, with a warning, until 0.3. */
  formerly?: string;
  type: ValueType<T>;
  /** One line on what it does, for the reference. */
  doc: string;
  /** How the default reads in the reference, when the value itself would not say it well. */
  defaultDoc?: string;
}

export interface Setting<T, Required extends boolean> extends SettingSpec<T> {
  default?: Default<T>;
  /** Whether the setting always has a value (it has a default). */
  required: Required;
}

export type AnySetting = Setting<unknown, boolean>;

export function setting<T>(spec: SettingSpec<T> & { default: Default<NoInfer<T>> }): Setting<T, true>;
export function setting<T>(spec: SettingSpec<T>): Setting<T, false>;
export function setting<T>(spec: SettingSpec<T> & { default?: Default<T> }): Setting<T, boolean> {
  return { ...spec, required: spec.default !== undefined };
}

export interface Section<S extends Record<string, AnySetting> = Record<string, AnySetting>> {
  title: string;
  settings: S;
}

export function section<S extends Record<string, AnySetting>>(title: string, settings: S): Section<S> {
  return { title, settings };
}

export type SettingsTable = Record<string, Section>;

type ValueOf<S> =
  S extends Setting<infer T, true> ? T : S extends Setting<infer T, boolean> ? T | undefined : never;

/** The configuration a table describes: one object per section, one field per setting. */
export type ConfigOf<Table extends SettingsTable> = {
  [K in keyof Table]: { [P in keyof Table[K]['settings']]: ValueOf<Table[K]['settings'][P]> };
};

// ---------------------------------------------------------------------------------------------
// Value types
// ---------------------------------------------------------------------------------------------

const type = <T>(schema: z.ZodType<T>, values: string): ValueType<T> => ({ schema, values });

/** Digits only: no sign, decimals, exponent or hex slip through as numbers. */
const integer = z
  .string()
  .regex(/^\d+$/, 'must be a whole number')
  .transform((v) => Number(v));

const intRange = (min: number, max = Number.MAX_SAFE_INTEGER) => integer.pipe(z.number().int().min(min).max(max));
const csv = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
const code = (value: unknown) => `\`${String(value)}\``;
/** Booleans were written `on`/`off` (MODELS_VERIFY) or `1`/`0` before 0.2; `true`/`false` now. */
const BOOLEAN_SPELLINGS_BEFORE_0_2: Readonly<Record<string, string>> = { on: 'true', off: 'false', 1: 'true', 0: 'false' };

/** One of a few words, each listed in the reference. */
export function oneOf<const T extends readonly [string, ...string[]]>(...options: T): ValueType<T[number]> {
  return type(z.enum(options), options.map(code).join(' '));
}

export const types = {
  text: type(z.string().min(1), 'non-empty'),
  path: type(z.string().min(1), 'path'),
  command: type(z.string().min(1), 'path or name on `PATH`'),
  modelFile: type(z.string().min(1), 'file name in `MODELS_DIR`, or a path'),
  url: type(
    z.url({ protocol: /^https?$/ }).transform((v) => v.replace(/\/+$/, '')),
    'http(s) URL, trailing `/` removed',
  ),
  postgresUrl: type(z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'must start with postgres://'), '`postgres://user:password@host:port/database`'),
  port: type(intRange(0, 65_535), '0–65535'),
  positiveInt: type(intRange(1), 'positive integer'),
  nonNegativeInt: type(intRange(0), 'integer ≥ 0'),
  intAtLeast: (min: number) => type(intRange(min), `integer ≥ ${min}`),
  intBetween: (min: number, max: number) => type(intRange(min, max), `${min}–${max}`),
  positiveNumber: type(z.coerce.number().positive(), 'positive number (decimals allowed)'),
  bool: {
    schema: z
      .string()
      .transform((v) => BOOLEAN_SPELLINGS_BEFORE_0_2[v] ?? v)
      .pipe(z.enum(['true', 'false']))
      .transform((v) => v === 'true'),
    values: '`true` `false`',
    deprecatedSpellings: BOOLEAN_SPELLINGS_BEFORE_0_2,
  } satisfies ValueType<boolean>,
  list: type(csv, 'comma-separated'),
  hostList: type(csv, 'comma-separated `host` or `host:port`'),
  secret: (minChars: number) =>
    type(z.string().min(minChars, `must be at least ${minChars} characters`), `≥ ${minChars} characters`),
  /** A Standard Webhooks signing secret: `whsec_` and strict base64 of at least 24 bytes. */
  webhookSecret: type(
    z.string().superRefine((secret, context) => {
      const parsed = parseWebhookSecret(secret);
      if ('problem' in parsed) context.addIssue({ code: 'custom', message: parsed.problem });
    }),
    `\`whsec_\` + base64 of ≥ ${MIN_WEBHOOK_KEY_BYTES} bytes`,
  ),
  /** Bearer tokens of one role, `name=token` each; `allowUnnamed` also reads a bare token (before 0.2). */
  namedTokens: (role: Role, allowUnnamed: boolean) =>
    type(
      z.string().transform((list, context) => {
        const { tokens, problems } = parseTokenList(list, role, allowUnnamed);
        for (const message of problems) context.addIssue({ code: 'custom', message });
        return tokens;
      }),
      allowUnnamed ? 'comma-separated `name=token` (a bare `token`: read until 0.3)' : 'comma-separated `name=token`',
    ),
  gpuLayers: type(z.union([z.enum(['auto', 'max']), intRange(0)]), '`auto` `max` or an integer ≥ 0'),
  tesseractLangs: type(
    z
      .string()
      .regex(/^[a-z_]+(\+[a-z_]+)*$/, 'must look like chi_sim+eng')
      .transform((v) => v.split('+')),
    'names joined by `+` (`[a-z_]+`)',
  ),
  whisperLanguage: type(
    z.string().regex(/^(auto|[a-z]{2,3})$/, 'must be a whisper language code such as zh or en, or auto'),
    'a 2–3 letter whisper code, or `auto`',
  ),
};

// ---------------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------------

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** The variables that are set: values trimmed, blank values count as unset. */
function presentVariables(source: NodeJS.ProcessEnv): Map<string, string> {
  return new Map(
    Object.entries(source)
      .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1].trim() !== '')
      .map(([key, value]) => [key, value.trim()]),
  );
}

/** The variable a setting is read from, and its text: its own, or else the one it had before 0.2. */
function rawValue(variables: Map<string, string>, spec: AnySetting): { name: string; raw: string } | undefined {
  const name = [spec.env, spec.formerly].find((candidate) => candidate !== undefined && variables.has(candidate));
  return name === undefined ? undefined : { name, raw: variables.get(name)! };
}

/** Whether a default is worked out at start rather than written in the table. */
export const isComputed = (value: unknown): value is ComputedDefault<unknown> | DerivedDefault<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { value?: unknown }).value === 'function';

/** Every setting of a table by its variable name. */
export function settingsByEnv(table: SettingsTable): Map<string, AnySetting> {
  return new Map(Object.values(table).flatMap((group) => Object.values(group.settings).map((s) => [s.env, s] as const)));
}

/** Reads `table` from the environment: every problem is reported at once, as a ConfigError. */
export function loadSettings<Table extends SettingsTable>(table: Table, source: NodeJS.ProcessEnv): ConfigOf<Table> {
  const variables = presentVariables(source);
  const byEnv = settingsByEnv(table);
  const problems: string[] = [];
  const parsed = new Map<string, unknown>();
  for (const [env, spec] of byEnv) {
    const read = rawValue(variables, spec);
    if (read === undefined) continue;
    const result = spec.type.schema.safeParse(read.raw);
    if (result.success) parsed.set(env, result.data);
    else problems.push(...result.error.issues.map((issue) => `${read.name}: ${issue.message}`));
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const valueOf = (env: string): unknown => {
    if (parsed.has(env)) return parsed.get(env);
    const fallback = byEnv.get(env)?.default;
    if (!isComputed(fallback)) return fallback;
    const value = 'from' in fallback ? fallback.value(Number(valueOf(fallback.from.env))) : fallback.value();
    parsed.set(env, value);
    return value;
  };
  return Object.fromEntries(
    Object.entries(table).map(([name, group]) => [
      name,
      Object.fromEntries(Object.entries(group.settings).map(([key, spec]) => [key, valueOf(spec.env)])),
    ]),
  ) as ConfigOf<Table>;
}

/**
 * What `source` sets the way it was set before 0.2 (a setting's former name, a boolean written
 * `on`/`off` or `1`/`0`): one line each, naming the old and the new, for the log at start.
 */
export function deprecatedSettings(table: SettingsTable, source: NodeJS.ProcessEnv): string[] {
  const variables = presentVariables(source);
  return [...settingsByEnv(table).values()].flatMap((spec) =>
    [formerNameWarning(variables, spec), formerSpellingWarning(variables, spec)].filter((line) => line !== undefined),
  );
}

function formerNameWarning(variables: Map<string, string>, { env, formerly }: AnySetting): string | undefined {
  if (formerly === undefined || !variables.has(formerly)) return undefined;
  return variables.has(env)
    ? `${formerly} is now ${env}, which is also set: ${formerly} is ignored; remove it`
    : `${formerly} is now ${env}: rename it (the old name is read until 0.3)`;
}

function formerSpellingWarning(variables: Map<string, string>, spec: AnySetting): string | undefined {
  const read = rawValue(variables, spec);
  const canonical = read === undefined ? undefined : spec.type.deprecatedSpellings?.[read.raw];
  if (read === undefined || canonical === undefined) return undefined;
  return `${read.name}=${read.raw} is now written ${spec.env}=${canonical} (the old spelling is read until 0.3)`;
}

/** For process entry points: a bad configuration prints its problems and exits with 78 (EX_CONFIG). */
export function readConfigOrExit<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(78);
  }
}
