/**
 * Unlabelled Chinese street addresses: an administrative part (省/市/区/县/镇/乡), then a street
 * part (路/街/道/巷/弄/村, so 大道 too) and a house number with 号, optionally 栋/单元/室/楼. Hospital
 * and department names have no street number, so they never match. The words 住/在/于/的 end the
 * place on the left, so "家住在…" stays visible.
 */
import { matchSpans, toHalfWidth } from './text.js';
import type { Detection } from './types.js';

const NUMBER = '[\\d一二三四五六七八九十百零〇]+';
const PLACE = '(?:(?![住在于的])\\p{Script=Han})+?';
const ADDRESS = new RegExp(
  `${PLACE}[省市区县镇乡]\\p{Script=Han}*?(?:路|街|道|巷|弄|村)\\s?${NUMBER}(?:-${NUMBER})?\\s?号` +
    `(?:\\s?${NUMBER}\\s?(?:栋|幢|单元|室|楼|层|号楼))*`,
  'gu',
);

export function detectStreetAddresses(rawLine: string): Detection[] {
  return matchSpans(ADDRESS, toHalfWidth(rawLine)).map((found) => ({ ...found, kind: 'address', rule: 'street-address' }));
}
