import { describe, expect, it } from 'vitest';
import { detectPhones } from '../../../../src/operations/case-file-process/detectors/phone.js';
import { detectStreetAddresses } from '../../../../src/operations/case-file-process/detectors/street-address.js';
import { slices } from './slices.js';

describe('detectPhones', () => {
  it.each([
    ['联系 13812345678', ['13812345678']],
    ['手机138 1234 5678。', ['138 1234 5678']],
    ['call 138-1234-5678 now', ['138-1234-5678']],
    ['+86 13912345678', ['+86 13912345678']],
    ['008613912345678', ['008613912345678']],
    ['座机 0512-67780000', ['0512-67780000']],
    ['座机 0512-6778 0000', ['0512-6778 0000']],
    ['(0512) 6778-0000', ['(0512) 6778-0000']],
    ['(0512)67780000转123', ['(0512)67780000转123']],
    ['010-87654321-8001', ['010-87654321-8001']],
    ['热线 400-820-8820', ['400-820-8820']],
    ['８００８２０８８２０', ['８００８２０８８２０']],
    ['家属 13812345678 / 15987654321', ['13812345678', '15987654321']],
  ])('%s', (line, expected) => {
    const found = detectPhones(line);
    expect(slices(line, found)).toEqual(expected);
    expect(found.every((detection) => detection.kind === 'phone')).toBe(true);
  });

  it.each([
    ['白细胞计数 3.86 10^9/L 3.5-9.5'],
    ['血小板计数 171 125-350'],
    ['4.0～10.0 122'],
    ['报告日期：2016-08-24 08:30'],
    ['2016/8/24 20160824'],
    ['CEA 13.812345678'],
    ['病理分期：IIIA期 (T2N2M0) pT2N1M0 C34.1'],
    ['12812345678'],
    ['138123456789'],
    ['0512-123'],
  ])('nothing in %s', (line) => {
    expect(detectPhones(line)).toEqual([]);
  });
});

describe('detectStreetAddresses', () => {
  it.each([
    ['江苏省苏州市工业园区星湖街328号', ['江苏省苏州市工业园区星湖街328号']],
    ['患者家住苏州市姑苏区人民路100号3栋201室，', ['苏州市姑苏区人民路100号3栋201室']],
    ['上海市浦东新区世纪大道1000号', ['上海市浦东新区世纪大道1000号']],
    ['吴江区松陵镇王家村12号', ['吴江区松陵镇王家村12号']],
    ['北京市海淀区中关村大街 27 号', ['北京市海淀区中关村大街 27 号']],
  ])('%s', (line, expected) => {
    const found = detectStreetAddresses(line);
    expect(slices(line, found)).toEqual(expected);
    expect(found.every((detection) => detection.kind === 'address')).toBe(true);
  });

  it.each([
    ['市第一人民医院'],
    ['苏州大学附属第一医院'],
    ['独墅湖科教创新区医院 肿瘤科'],
    ['临床诊断：右肺上叶腺癌'],
    ['星湖街328号'],
    ['苏州市立医院 3号楼'],
  ])('nothing in %s', (line) => {
    expect(detectStreetAddresses(line)).toEqual([]);
  });
});
