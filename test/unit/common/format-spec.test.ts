/**
 * Python's format() mini-language. Each expected text is what CPython 3.13 prints for
 * `format(value, spec)` ("!" and the exception's name where it refuses).
 */
import { FormatSpecError, formatValue } from '../../../functions/common/inspection-rules/format-spec';
import { pythonFormat, safeFormat } from '../../../functions/common/inspection-rules/interpolate';

const PYTHON: [unknown, string, string][] = [
  ['abc', '>5', '  abc'],
  ['abc', '*^7', '**abc**'],
  ['abc', '.2', 'ab'],
  ['abc', '05', 'abc00'],
  ['abc', '10.1s', 'a         '],
  ['abc', '+5', '!ValueError'],
  ['abc', 'd', '!ValueError'],
  [16, '05', '00016'],
  [16, '#x', '0x10'],
  [255, '#X', '0XFF'],
  [5, '#b', '0b101'],
  [8, '#o', '0o10'],
  [65, 'c', 'A'],
  [1234567, ',', '1,234,567'],
  [255, '_x', 'ff'],
  [-16, '=+8', '-     16'],
  [16, ' ', ' 16'],
  [-16, '08', '-0000016'],
  [16, '.2f', '16.00'],
  [16, 'e', '1.600000e+01'],
  [16, '%', '1600.000000%'],
  [16, 's', '!ValueError'],
  [16, '.1', '!ValueError'],
  [1234, '012,', '0,000,001,234'],
  [1.5, '>8', '     1.5'],
  [1.5, '', '1.5'],
  [1.5, '.3f', '1.500'],
  [1.5, '.2e', '1.50e+00'],
  [1e-5, '', '1e-05'],
  [1e-5, '>8', '   1e-05'],
  [123456789.5, 'g', '1.23457e+08'],
  [1.5, '#g', '1.50000'],
  [1234.5678, ',.2f', '1,234.57'],
  [1.5, 'd', '!ValueError'],
  [-0.5, 'z.0f', '0'],
  [2.675, '.2f', '2.67'],
  [1234.5, '.3', '1.23e+03'],
  [123.5, '.3', '1.24e+02'],
  [0.5, '.0f', '0'],
  [2.5, '.0f', '2'],
  [2.675, '.0%', '268%'],
  [true, '>5', '    1'],
  [true, '', 'True'],
  [true, '.1f', '1.0'],
  [null, '>5', '!TypeError'],
  [null, '', 'None'],
  [[1], '>5', '!TypeError'],
  [{ a: 1 }, '', "{'a': 1}"],
  ['héllo', '^9', '  héllo  '],
];

describe('formatValue', () => {
  it.each(PYTHON)('format(%j, %j) is %j', (value, spec, python) => {
    if (python.startsWith('!')) {
      let kind: string | undefined;
      try {
        formatValue(value, spec);
      } catch (err) {
        kind = err instanceof FormatSpecError ? err.kind : String(err);
      }
      expect(kind).toBe(python.slice(1));
    } else expect(formatValue(value, spec)).toBe(python);
  });
});

describe('format specs in rule arguments', () => {
  const context = { node: { name: 'n1' }, inventory: { cpu: { count: 8 }, memory: { physical_mb: 16384.5 } }, plugin_data: { w: 6 } };

  it('formats a field with its spec, a spec of nested fields, and a converted value', () => {
    expect(pythonFormat('cpus={inventory[cpu][count]:03d}', context)).toBe('cpus=008');
    expect(pythonFormat('{inventory[memory][physical_mb]:,.1f} MiB', context)).toBe('16,384.5 MiB');
    expect(pythonFormat('[{inventory[cpu][count]:>{plugin_data[w]}}]', context)).toBe('[     8]');
    expect(pythonFormat('{node.name!r:>6}', context)).toBe("  'n1'");
  });

  it('leaves the argument as written where Python refuses the spec (safe_format)', () => {
    expect(safeFormat('{node.name:d}', context)).toBe('{node.name:d}');
    expect(safeFormat('{inventory[cpu][count]:{plugin_data[w]:{plugin_data[w]}}}', context)).toBe(
      '{inventory[cpu][count]:{plugin_data[w]:{plugin_data[w]}}}',
    );
  });
});
