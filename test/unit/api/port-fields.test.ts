/**
 * The port and portgroup fields of API 1.89–1.115: Port 1.1 and Portgroup 1.1 across versions
 * (old items read, a pinned service writes 1.0), the views per microversion, the schemas of
 * Ironic master from 1.88 on (OVN VTEP links, node_ident) and the 406s below each version.
 */
import { NotAcceptable, InvalidParameterValue } from '../../../functions/common/errors';
import { Port } from '../../../functions/objects/port';
import { Portgroup } from '../../../functions/objects/portgroup';
import { validatePort } from '../../../functions/api/controllers/port-common';
import { allowOvnVtep } from '../../../functions/api/schemas/port';
import { checkPortFieldVersions, portView } from '../../../functions/api/views/port';
import { checkPortgroupFieldVersions, portgroupView } from '../../../functions/api/views/portgroup';
import type { ApiVersion } from '../../../functions/api/microversion';

const v = (minor: number): ApiVersion => ({ major: 1, minor }) as ApiVersion;
const BASE = 'http://ironic.test';
const NODE = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123';
const T0 = '2026-11-27T10:00:00.000Z';
const VTEP = { port_id: 'p1', 'vtep-logical-switch': 'ls1', 'vtep-physical-switch': 'ps1' };

describe('Port 1.1', () => {
  it('reads a 1.0 item with the new fields at their defaults, to be written at 1.1 next', () => {
    const port = Port.fromItem({ version: '1.0', uuid: 'p', node_uuid: NODE, address: '52:54:00:00:00:01', created_at: T0 });
    expect(port).toMatchObject({ description: null, vendor: null, category: null, available_for_dynamic_portgroup: true });
    expect([...port.whatChanged()]).toContain('available_for_dynamic_portgroup');
    expect(port.toItem().version).toBe('1.1');
  });

  it('is written at 1.0 by a service pinned to 2026.3: the new fields are left out', () => {
    const port = new Port({ uuid: 'p', node_uuid: NODE, description: 'd', vendor: 'v', category: 'c', created_at: T0 });
    port.available_for_dynamic_portgroup = false;
    const item = port.toItem('1.0');
    expect(item).toMatchObject({ version: '1.0', uuid: 'p' });
    for (const field of ['description', 'vendor', 'category', 'available_for_dynamic_portgroup']) expect(item).not.toHaveProperty(field);
    expect(port.toPrimitive('1.0').data).not.toHaveProperty('available_for_dynamic_portgroup');
  });
});

describe('Portgroup 1.1', () => {
  it('reads a 1.0 item with physical_network and category null and dynamic_portgroup false', () => {
    const pg = Portgroup.fromItem({ version: '1.0', uuid: 'g', node_uuid: NODE, created_at: T0 });
    expect(pg).toMatchObject({ physical_network: null, category: null, dynamic_portgroup: false });
    const item = new Portgroup({ uuid: 'g', node_uuid: NODE, physical_network: 'net', created_at: T0 }).toItem('1.0');
    expect(item).not.toHaveProperty('physical_network');
  });
});

describe('port view per microversion', () => {
  const port = new Port({
    uuid: 'p',
    node_uuid: NODE,
    address: '52:54:00:00:00:01',
    description: 'd',
    vendor: 'v',
    category: 'c',
    local_link_connection: VTEP,
    created_at: T0,
  });
  const keys = (minor: number) => Object.keys(portView(port, { baseUrl: BASE, version: v(minor) }));

  it('shows description from 1.97, vendor from 1.100, category from 1.101, available_for_dynamic_portgroup from 1.111', () => {
    expect(keys(96)).not.toContain('description');
    expect(keys(97)).toContain('description');
    expect(keys(99)).not.toContain('vendor');
    expect(keys(100)).toContain('vendor');
    expect(keys(100)).not.toContain('category');
    expect(keys(101)).toContain('category');
    expect(keys(110)).not.toContain('available_for_dynamic_portgroup');
    expect(portView(port, { baseUrl: BASE, version: v(111) }).available_for_dynamic_portgroup).toBe(true);
  });

  it('shows an OVN VTEP link only at 1.90–1.104, and {} elsewhere', () => {
    expect(allowOvnVtep(v(89))).toBe(false);
    expect(portView(port, { baseUrl: BASE, version: v(89) }).local_link_connection).toEqual({});
    expect(portView(port, { baseUrl: BASE, version: v(90) }).local_link_connection).toEqual(VTEP);
    expect(portView(port, { baseUrl: BASE, version: v(104) }).local_link_connection).toEqual(VTEP);
    expect(portView(port, { baseUrl: BASE, version: v(105) }).local_link_connection).toEqual({});
  });

  it('answers 406 for a new field below its version from 1.88 on, and leaves it unknown (400) below 1.88', () => {
    expect(() => checkPortFieldVersions(['description'], v(96))).toThrow(NotAcceptable);
    expect(() => checkPortFieldVersions(['available_for_dynamic_portgroup'], v(110))).toThrow(NotAcceptable);
    expect(() => checkPortFieldVersions(['category'], v(101))).not.toThrow();
    expect(() => checkPortFieldVersions(['description'], v(87))).not.toThrow();
    expect(() => portView(port, { baseUrl: BASE, version: v(87), fields: ['description'] })).toThrow(InvalidParameterValue);
  });
});

describe('port schema from 1.88 (Ironic master)', () => {
  const body = (extra: Record<string, unknown>) => ({ address: '52:54:00:00:00:01', node_uuid: NODE, ...extra });

  it('accepts an OVN VTEP link, and refuses one switch of the pair without the other', () => {
    expect(validatePort('port', body({ local_link_connection: { ...VTEP } }), v(90)).local_link_connection).toEqual(VTEP);
    expect(() => validatePort('port', body({ local_link_connection: { port_id: 'p', 'vtep-logical-switch': 'x' } }), v(90))).toThrow(
      "Schema error for local_link_connection: {'port_id': 'p', 'vtep-logical-switch': 'x'} is not valid under any of the given schemas",
    );
    expect(() => validatePort('port', body({ local_link_connection: { ...VTEP } }), v(87))).toThrow(InvalidParameterValue);
  });

  it('takes the node by node_ident or node_uuid, not both', () => {
    expect(validatePort('port', { address: '52:54:00:00:00:01', node_ident: 'n1' }, v(94))).toMatchObject({ node_ident: 'n1' });
    expect(() => validatePort('port', body({ node_ident: 'n1' }), v(94))).toThrow(
      /is valid under each of \{'required': \['node_uuid'\]\}, \{'required': \['node_ident'\]\}/,
    );
  });

  it('limits description to 255, vendor to 32 and category to 80 characters, and wants a real boolean', () => {
    expect(() => validatePort('port', body({ vendor: 'v'.repeat(33) }), v(100))).toThrow(/is too long/);
    expect(() => validatePort('port', body({ category: 'c'.repeat(81) }), v(101))).toThrow(/is too long/);
    expect(() => validatePort('port', body({ description: 'd'.repeat(256) }), v(97))).toThrow(/is too long/);
    expect(() => validatePort('port', body({ available_for_dynamic_portgroup: 'yes' }), v(111))).toThrow(
      "Schema error for port: 'yes' is not of type 'boolean'",
    );
  });
});

describe('portgroup view per microversion', () => {
  const pg = new Portgroup({ uuid: 'g', node_uuid: NODE, physical_network: 'net', category: 'c', created_at: T0 });
  const view = (minor: number) => portgroupView(pg, { baseUrl: BASE, version: v(minor) });

  it('shows physical_network from 1.102, category from 1.103, dynamic_portgroup from 1.111', () => {
    expect(view(101)).not.toHaveProperty('physical_network');
    expect(view(102)).toMatchObject({ physical_network: 'net' });
    expect(view(102)).not.toHaveProperty('category');
    expect(view(103)).toMatchObject({ category: 'c' });
    expect(view(110)).not.toHaveProperty('dynamic_portgroup');
    expect(view(111)).toMatchObject({ dynamic_portgroup: false });
  });

  it('answers 406 for those fields below their version from 1.88 on', () => {
    expect(() => checkPortgroupFieldVersions(['dynamic_portgroup'], v(110))).toThrow(NotAcceptable);
    expect(() => checkPortgroupFieldVersions(['physical_network'], v(101))).toThrow(NotAcceptable);
    expect(() => checkPortgroupFieldVersions(['physical_network'], v(87))).not.toThrow();
  });
});
