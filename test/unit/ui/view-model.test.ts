import { aliasShares, conductorRows, upgradeRunning } from '../../../ui/src/conductors';
import { groupFields } from '../../../ui/src/fields';
import { MASK, ago, duration, maskSecrets } from '../../../ui/src/format';
import { formatRoute, parseRoute } from '../../../ui/src/route';

describe('routes', () => {
  it('round-trip through the hash', () => {
    for (const route of [
      { view: 'fleet', query: { provision_state: 'deploy failed', limit: '5' } },
      { view: 'node', ident: 'rack 1/node' },
      { view: 'conductors' },
      { view: 'enroll' },
    ] as const) {
      expect(parseRoute(formatRoute(route))).toEqual(route);
    }
    expect(parseRoute('')).toEqual({ view: 'fleet', query: {} });
    // The default conductor group is the empty string: a filter of its own.
    expect(parseRoute('#/fleet?conductor_group=&owner=')).toEqual({ view: 'fleet', query: { conductor_group: '' } });
  });
});

describe('format', () => {
  it('writes durations and ages for people', () => {
    expect([duration(4_000), duration(192_000), duration(7_500_000), duration(-1)]).toEqual(['4 s', '3 min 12 s', '2 h 05 min', '—']);
    expect(ago('2026-11-25T10:00:00Z', Date.parse('2026-11-25T10:00:12Z'))).toBe('12 s ago');
    expect(ago(null, 0)).toBe('—');
  });

  it('masks secret-looking keys at any depth, whatever the API already did', () => {
    expect(
      maskSecrets({ driver_info: { redfish_password: 'p', redfish_username: 'u', nested: [{ auth_token: 't' }] }, configdrive: 'x' }),
    ).toEqual({
      driver_info: { redfish_password: MASK, redfish_username: 'u', nested: [{ auth_token: MASK }] },
      configdrive: MASK,
    });
  });
});

describe('groupFields', () => {
  it("groups a node's fields as Ironic documents them and keeps unknown ones under Other", () => {
    const groups = groupFields({
      uuid: 'u',
      driver: 'redfish',
      power_interface: 'redfish',
      links: [],
      newer_field: 1,
      provision_state: 'active',
    });
    expect(groups.map((g) => [g.title, g.entries.map(([k]) => k)])).toEqual([
      ['Identity', ['uuid']],
      ['State', ['provision_state']],
      ['Driver and interfaces', ['driver', 'power_interface']],
      ['Other', ['newer_field']],
    ]);
  });
});

describe('conductors and upgrades', () => {
  const upgrade = {
    state: 'in-progress',
    aliases: { conductor: { version: '3', weights: { '4': 0.25 } } },
    versions: { conductor: { '3': { release: '2026.3', pinned: false }, '4': { release: 'master', pinned: true } } },
  };

  it('reads versions from hostnames (or a field), releases from the upgrade', () => {
    const rows = conductorRows(
      [
        { hostname: 'conductor:4:east', conductor_group: 'east', alive: true, drivers: ['redfish'], updated_at: '2026-11-25T10:00:00Z' },
        { hostname: 'ironic-1.example', alive: false, version: '3' },
        { hostname: 'odd' },
      ],
      upgrade,
    );
    expect(rows.map((r) => [r.hostname, r.version, r.group, r.alive, r.release, r.pinned])).toEqual([
      ['conductor:4:east', '4', 'east', true, 'master', true],
      ['ironic-1.example', '3', '', false, '2026.3', false],
      ['odd', undefined, '', undefined, undefined, undefined],
    ]);
  });

  it('splits an alias by its weights and knows when no upgrade runs', () => {
    expect(aliasShares(upgrade.aliases.conductor)).toEqual([
      { version: '3', share: 0.75 },
      { version: '4', share: 0.25 },
    ]);
    expect([upgradeRunning(undefined), upgradeRunning({ state: 'idle' }), upgradeRunning(upgrade)]).toEqual([false, false, true]);
  });
});
