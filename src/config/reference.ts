/**
 * The configuration reference of the operator's guide (§5), rendered from a settings table so
 * the two cannot drift apart; `npm run docs:generate` writes it into the guide, and
 * `npm run docs:generate -- --check` (run by the tests) fails when the guide is out of date.
 */
import { isComputed, type AnySetting, type SettingsTable } from './define.js';

const MIB = 1024 * 1024;
const DURATIONS: Array<[number, string]> = [
  [24 * 3600_000, 'd'],
  [3600_000, 'h'],
  [60_000, 'min'],
];

/** A large number of bytes or milliseconds also said in MiB, minutes, hours or days. */
function withUnit(env: string, value: number): string {
  if (env.endsWith('_BYTES') && value >= MIB && value % MIB === 0) return `\`${value}\` (${value / MIB} MiB)`;
  const unit = env.endsWith('_MS') ? DURATIONS.find(([ms]) => value >= ms && value % ms === 0) : undefined;
  return unit ? `\`${value}\` (${value / unit[0]} ${unit[1]})` : `\`${value}\``;
}

function defaultText(setting: AnySetting): string {
  if (setting.defaultDoc !== undefined) return setting.defaultDoc;
  const value = setting.default;
  if (value === undefined) return 'none';
  if (isComputed(value)) return 'from' in value ? value.doc(value.from.env) : value.doc;
  if (typeof value === 'number') return withUnit(setting.env, value);
  return `\`${String(value)}\``;
}

const cell = (text: string) => text.replaceAll('|', '\\|');

const meaning = (setting: AnySetting): string =>
  setting.formerly === undefined ? setting.doc : `${setting.doc}. Named \`${setting.formerly}\` before 0.2 (still read, with a warning, until 0.3)`;

/** One `###` section per section of the table, each a table of its variables. */
export function configurationReference(table: SettingsTable): string {
  const sections = Object.values(table).map((group) => {
    const rows = Object.values(group.settings).map(
      (setting) => `| \`${setting.env}\` | ${cell(defaultText(setting))} | ${cell(setting.type.values)} | ${cell(meaning(setting))} |`,
    );
    return [`### ${group.title}`, '', '| variable | default | valid values | meaning |', '|---|---|---|---|', ...rows].join('\n');
  });
  return sections.join('\n\n');
}
