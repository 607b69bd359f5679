import { describe, expect, it } from 'vitest';
import { detectEmails } from '../../../src/operations/personal-data/email.js';
import { detectLongIdentifiers } from '../../../src/operations/personal-data/long-identifier.js';
import { detectNameBeforeSex } from '../../../src/operations/personal-data/name-before-sex.js';
import { detectPassports } from '../../../src/operations/personal-data/passport.js';
import { detectResidentIds, isValidResidentId } from '../../../src/operations/personal-data/resident-id.js';
import { slices } from './slices.js';

/** GB 11643 check character, written independently of the code under test. */
function checkChar(first17: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * (Math.pow(2, 17 - i) % 11);
  const check = (12 - (sum % 11)) % 11;
  return check === 10 ? 'X' : String(check);
}

function withOneDigitChanged(id: string): string {
  const digit = (Number(id[5]) + 1) % 10;
  return id.slice(0, 5) + digit + id.slice(6);
}

const BUILT_IDS = ['32050819800101123', '44030519991231456', '11010119700307001', '51010720000229888'].map(
  (first17) => first17 + checkChar(first17),
);

describe('isValidResidentId', () => {
  it.each(['11010519491231002X', '11010519491231002x', ...BUILT_IDS])('%s is valid', (id) => {
    expect(isValidResidentId(id)).toBe(true);
  });

  it.each([...BUILT_IDS, '11010519491231002X'].map(withOneDigitChanged))('%s (one digit changed) is not', (id) => {
    expect(isValidResidentId(id)).toBe(false);
  });

  it('accepts the old 15-digit form with a real birth date only', () => {
    expect(isValidResidentId('110105491231002')).toBe(true);
    expect(isValidResidentId('110105491331002')).toBe(false);
    expect(isValidResidentId('110105490230002')).toBe(false);
  });

  it.each(['1101051949123100', '11010519491231002Y', 'abcdefghijklmnopqr', ''])('%s is not', (id) => {
    expect(isValidResidentId(id)).toBe(false);
  });
});

describe('detectResidentIds', () => {
  it('finds a valid ID in running text as resident_id', () => {
    const line = `证件 ${BUILT_IDS[0]} 已核对`;
    const found = detectResidentIds(line);
    expect(slices(line, found)).toEqual([BUILT_IDS[0]]);
    expect(found[0]).toMatchObject({ kind: 'resident_id', rule: 'resident-id' });
  });

  it('redacts an ID with a wrong check digit as identifier (fail-closed)', () => {
    const wrong = withOneDigitChanged(BUILT_IDS[1]!);
    const line = `ID ${wrong}`;
    expect(detectResidentIds(line).map((found) => [line.slice(found.start, found.end), found.kind])).toEqual([[wrong, 'identifier']]);
  });

  it('reads O as 0 and l as 1, and full-width digits', () => {
    expect(detectResidentIds('1101O519491231002X')[0]?.kind).toBe('resident_id');
    expect(detectResidentIds('１１０１０５１９４９１２３１００２Ｘ')[0]).toMatchObject({ start: 0, end: 18, kind: 'resident_id' });
  });

  it.each([['1101051949123100'], ['11010519491231002X3'], ['单号 110105491331002'], ['白细胞计数 3.86 10^9/L']])('nothing in %s', (line) => {
    expect(detectResidentIds(line)).toEqual([]);
  });
});

describe('detectLongIdentifiers', () => {
  it.each([
    ['sample No 20160824XXS0025', ['20160824XXS0025']],
    ['MRN00123456', ['MRN00123456']],
    ['单号 123456789 已收', ['123456789']],
    ['发票 01425472', ['01425472']],
    ['条码 20161399', ['20161399']],
    ['编号:A1B2C3D4E5F6', ['A1B2C3D4E5F6']],
    // A 7-digit run, its label lost or misread on a photo; a number OCR cut into cells of 4 or more digits.
    ['珍  9005106  科室儿科', ['9005106']],
    ['#  9005  1065  科室', ['9005  1065']],
  ])('%s', (line, expected) => {
    const found = detectLongIdentifiers(line);
    expect(slices(line, found)).toEqual(expected);
    expect(found.every((detection) => detection.kind === 'identifier')).toBe(true);
  });

  it.each([
    ['报告日期 20160824'],
    ['2016-08-24 08:30'],
    ['2016/8/24'],
    ['白细胞计数 3.86 10^9/L 3.5-9.5'],
    ['血小板计数 171 125-350'],
    ['pT2N1M0 T3N1M0 IIIA期'],
    ['Ki-67 60% 3.2×2.1cm C34.1'],
    ['血小板计数  171  100  300'],
    ['2016  08  24'],
    ['CEA 3.1415926535 ng/ml'],
    ['4.0～10.0 12345678.9'],
    ['ABCDEFGH12345'],
  ])('nothing in %s', (line) => {
    expect(detectLongIdentifiers(line)).toEqual([]);
  });
});

describe('detectEmails', () => {
  it.each([
    ['联系邮箱 zhang.san@example.com 。', ['zhang.san@example.com']],
    ['E-mail:li_si+mdt@hospital.org.cn', ['li_si+mdt@hospital.org.cn']],
    ['ｗａｎｇ＠ｅｘａｍｐｌｅ．ｃｏｍ', ['ｗａｎｇ＠ｅｘａｍｐｌｅ．ｃｏｍ']],
  ])('%s', (line, expected) => {
    expect(slices(line, detectEmails(line))).toEqual(expected);
  });

  it.each([['user@localhost'], ['@example.com'], ['比值 3@4.5'], ['no email here']])('nothing in %s', (line) => {
    expect(detectEmails(line)).toEqual([]);
  });
});

describe('detectPassports', () => {
  it.each([
    ['护照 E12345678', ['E12345678']],
    ['护 照号码:G12345678 有效期', ['G12345678']],
    ['Passport EA1234567 issued', ['EA1234567']],
  ])('%s', (line, expected) => {
    const found = detectPassports(line);
    expect(slices(line, found)).toEqual(expected);
    expect(found[0]?.kind).toBe('passport');
  });

  it.each([['E12345678'], ['G12345678 护照'], ['护照 E1234567'], ['护照 XE12345678']])('nothing in %s', (line) => {
    expect(detectPassports(line)).toEqual([]);
  });
});

describe('a name whose label was lost, right before the 性别 field', () => {
  it.each([
    ['孟丁  性别男  年龄  2岁', '孟丁'],
    ['王建国  性 别 男', '王建国'],
    ['No:123  张三 性别：女', '张三'],
    // 名 misread before the name: a label's remnant in the name's cell.
    ['多孟丁  性别男', '孟丁'],
  ])('%s → %s', (line, name) => {
    expect(detectNameBeforeSex(line).map((d) => line.slice(d.start, d.end))).toEqual([name]);
  });

  it.each([['检验项目  性别'], ['高血压  性别男'], ['患者张三性别男'], ['孟丁丁丁丁  性别男'], ['标本类型  性别']])('%s → nothing', (line) => {
    expect(detectNameBeforeSex(line)).toEqual([]);
  });
});
