import { ANY_NETWORK, FilterSyntaxError, type PortLikeFacts, matches, parseFilter } from '../../../../functions/drivers/tbn/filter';

const port = (facts: Partial<PortLikeFacts> = {}): PortLikeFacts => ({
  kind: 'port',
  address: '52:54:00:00:00:01',
  category: null,
  physical_network: null,
  vendor: null,
  ...facts,
});
const net = (name: string | null = 'storage', tags: string[] = []) => ({ name, tags });

describe('trait based networking filter expressions', () => {
  it('compares a variable with a string literal, each comparator', () => {
    const p = port({ vendor: 'purple', category: 'storage-a' });
    expect(matches(parseFilter("port.vendor == 'purple'"), p, net())).toBe(true);
    expect(matches(parseFilter("port.vendor != 'purple'"), p, net())).toBe(false);
    expect(matches(parseFilter("port.category =~ 'storage'"), p, net())).toBe(true);
    expect(matches(parseFilter("port.category =~ 'compute'"), p, net())).toBe(false);
    expect(matches(parseFilter("port.vendor > 'green'"), p, net())).toBe(true);
    expect(matches(parseFilter("port.vendor >= 'purple'"), p, net())).toBe(true);
    expect(matches(parseFilter("port.vendor < 'green'"), p, net())).toBe(false);
    expect(matches(parseFilter("port.vendor <= 'purple'"), p, net())).toBe(true);
    expect(matches(parseFilter("network.name == 'storage'"), p, net())).toBe(true);
  });

  it('joins with && and ||, && first, parentheses first of all', () => {
    // Ironic's parser test: vendor, category, then a parenthesised alternative.
    const filter = parseFilter(
      "port.vendor == 'green' && port.category == 'storage' && (port.physical_network =~ 'storage' || port.address == '192.168.1.1')",
    );
    const p = { vendor: 'green', address: '192.168.1.1', category: 'storage' };
    expect(matches(filter, port({ ...p, physical_network: 'storagenet' }), net())).toBe(true);
    expect(matches(filter, port({ ...p, physical_network: 'othernet' }), net())).toBe(true);
    expect(matches(filter, port({ ...p, vendor: 'brown', physical_network: 'storagenet' }), net())).toBe(false);
    const brown = port({ vendor: 'brown', address: '192.168.1.1', category: 'prod' });
    expect(matches(parseFilter("(port.vendor == 'green' && port.category == 'test') || port.address == '192.168.1.1'"), brown, net())).toBe(
      true,
    );
    expect(matches(parseFilter("port.vendor == 'green' && (port.category == 'test' || port.address == '192.168.1.1')"), brown, net())).toBe(
      false,
    );
    // Without parentheses && binds tighter: a || (b && c).
    expect(matches(parseFilter("port.address == '192.168.1.1' || port.vendor == 'x' && port.category == 'y'"), brown, net())).toBe(true);
  });

  it('tells ports from portgroups with port.is_port and port.is_portgroup', () => {
    const either = parseFilter('port.is_port || port.is_portgroup');
    expect(matches(parseFilter('port.is_port'), port(), net())).toBe(true);
    expect(matches(parseFilter('port.is_portgroup'), port(), net())).toBe(false);
    expect(matches(parseFilter('port.is_portgroup'), port({ kind: 'portgroup' }), net())).toBe(true);
    expect(matches(either, port({ kind: 'portgroup' }), net())).toBe(true);
  });

  it('matches network.tags by membership or by a tag’s prefix', () => {
    const tagged = net('n', ['storage-a', 'fast']);
    expect(matches(parseFilter("network.tags == 'fast'"), port(), tagged)).toBe(true);
    expect(matches(parseFilter("network.tags == 'storage'"), port(), tagged)).toBe(false);
    expect(matches(parseFilter("network.tags != 'slow'"), port(), tagged)).toBe(true);
    expect(matches(parseFilter("network.tags =~ 'stor'"), port(), tagged)).toBe(true);
    expect(() => parseFilter("network.tags > 'a'")).toThrow('network.tags is a list: only ==, != and =~ apply to it, not >');
  });

  it('lets any network pass network tests when only the port matters, and fails a missing value', () => {
    const filter = parseFilter("port.vendor == 'purple' && network.name == 'storage'");
    expect(matches(filter, port({ vendor: 'purple' }), ANY_NETWORK)).toBe(true);
    expect(matches(filter, port({ vendor: 'purple' }), net('public'))).toBe(false);
    expect(matches(parseFilter("port.vendor != 'purple'"), port({ vendor: null }), net())).toBe(false);
    expect(matches(parseFilter("network.name == 'storage'"), port(), net(null))).toBe(false);
  });

  it.each([
    ["port.colour == 'red'", 'unknown variable "port.colour"'],
    ["port.vendor = 'red'", 'unexpected text at character 13'],
    ['port.vendor == "red"', 'unexpected text at character 16'],
    ["port.vendor == 'red' &&", 'the expression ends where a comparison was expected'],
    ["(port.vendor == 'red'", 'a "(" is not closed'],
    ["port.vendor == 'red' port.is_port", 'unexpected "port.is_port"'],
    ["port.vendor 'red'", 'expected a comparator after "port.vendor"'],
    ["port.vendor == 'a b'", 'unexpected text'],
  ])('refuses %s', (source, message) => {
    expect(() => parseFilter(source)).toThrow(FilterSyntaxError);
    expect(() => parseFilter(source)).toThrow(message);
  });
});
