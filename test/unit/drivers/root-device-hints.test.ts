/** Root device hints as Ironic parses and matches them (oslo.utils' specs_matcher operators). */
import { findDevicesByHints, parseRootDeviceHints, specMatches } from '../../../functions/drivers/inspector/root-device-hints';

const GIB = 1024 ** 3;
const DISKS = [
  { name: '/dev/sda', size: 10 * GIB, model: 'Samsung SSD 860', vendor: 'ATA', serial: 'S1', rotational: false, wwn: '0x5000a' },
  { name: '/dev/sdb', size: 100 * GIB, model: 'WDC WD1000', vendor: 'WDC', serial: 'S2', rotational: true, wwn: '0x5000b' },
  { name: '/dev/sdc', size: 100 * GIB, model: 'Samsung SSD 970 EVO', vendor: 'Samsung', serial: 'S3', rotational: 'false' },
];
const names = (hints: Record<string, unknown>) => findDevicesByHints(DISKS, hints).map((d) => d.name);

describe('parseRootDeviceHints', () => {
  it('gives hints without an operator an equality, and normalizes strings (lower case, URL quoting)', () => {
    expect(parseRootDeviceHints({ size: 100, model: 'Samsung SSD', rotational: 'yes', serial: '<in> ab' })).toEqual({
      size: '== 100',
      model: 's== samsung%20ssd',
      rotational: true,
      serial: '<in> ab',
    });
  });

  it('refuses what Ironic refuses, with its messages', () => {
    expect(() => parseRootDeviceHints({ colour: 'red', size: 1 })).toThrow(
      'The hints "colour" are invalid. Valid hints are: "size, model,',
    );
    expect(() => parseRootDeviceHints({ size: 'big' })).toThrow('Root device hint "size" is not an integer value. Current value: big');
    expect(() => parseRootDeviceHints({ size: 0 })).toThrow('Root device hint "size" should be a positive integer. Current value: 0');
    expect(() => parseRootDeviceHints({ model: 5 })).toThrow('Root device hint "model" is not a string value. Hint expression: 5');
    expect(() => parseRootDeviceHints({ rotational: 'maybe' })).toThrow('Root device hint "rotational" is not a Boolean value.');
    expect(() => parseRootDeviceHints({ name: '  ' })).toThrow('Root device hint "name" expression is empty');
  });
});

describe('findDevicesByHints', () => {
  it('matches every hint, in the order the disks come', () => {
    expect(names({ size: 100 })).toEqual(['/dev/sdb', '/dev/sdc']);
    expect(names({ size: 100, rotational: false })).toEqual(['/dev/sdc']);
    expect(names({ name: '/dev/sda' })).toEqual(['/dev/sda']);
    expect(names({ model: 'samsung ssd 860' })).toEqual(['/dev/sda']);
    expect(names({ wwn: '0x5000b' })).toEqual(['/dev/sdb']);
  });

  it('understands the operators', () => {
    expect(names({ size: '>= 50' })).toEqual(['/dev/sdb', '/dev/sdc']);
    expect(names({ size: '<= 50' })).toEqual(['/dev/sda']);
    expect(names({ size: '!= 100' })).toEqual(['/dev/sda']);
    expect(names({ model: '<in> samsung' })).toEqual(['/dev/sda', '/dev/sdc']);
    expect(names({ vendor: '<or> wdc <or> ata' })).toEqual(['/dev/sda', '/dev/sdb']);
    expect(names({ serial: 's!= S1' })).toEqual(['/dev/sdb', '/dev/sdc']);
    expect(names({ size: '<range-in> [50 100]' })).toEqual(['/dev/sdb', '/dev/sdc']);
    expect(names({ size: '<range-in> [50 100)' })).toEqual([]);
  });

  it('skips a disk that lacks the attribute a string hint names', () => {
    expect(names({ wwn: '<in> 0x5000' })).toEqual(['/dev/sda', '/dev/sdb']);
  });
});

describe('specMatches', () => {
  it("compares as specs_matcher does: '=' means at least, a bare value equality", () => {
    expect(specMatches(10, '= 5')).toBe(true);
    expect(specMatches(4, '= 5')).toBe(false);
    expect(specMatches('abc', 'abc')).toBe(true);
    expect(specMatches('abc', '<all-in> a c')).toBe(true);
    expect(specMatches(100, '<or> 100 <or> 200')).toBe(false); // a number never equals a string, as in Python
  });
});
