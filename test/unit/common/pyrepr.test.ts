import { pyRepr, pyStr } from '../../../functions/common/pyrepr';

describe('pyRepr of floats', () => {
  it('prints the shortest digits that read back, in scientific form below 1e-4, as Python does', () => {
    const cases: [number, string][] = [
      [1e-5, '1e-05'],
      [1.234e-7, '1.234e-07'],
      [0.0001, '0.0001'],
      [0.1, '0.1'],
      [1.5, '1.5'],
      [-2.5e-5, '-2.5e-05'],
      [123456.789, '123456.789'],
    ];
    for (const [value, python] of cases) expect(pyRepr(value)).toBe(python);
  });

  it('prints integral numbers as ints (JSON does not tell 16 from 16.0) and the other values as Python', () => {
    expect(pyStr(16)).toBe('16');
    expect(pyRepr([1, 'a', null, true, { k: 0.5 }])).toBe("[1, 'a', None, True, {'k': 0.5}]");
  });
});
