/**
 * Views and request schemas of ports, portgroups, chassis and deploy templates: fields per
 * microversion, the `fields` selection, masking, and Ironic's validation messages.
 */
import { Chassis } from '../../../functions/objects/chassis';
import { DeployTemplate } from '../../../functions/objects/deploy-template';
import { Port } from '../../../functions/objects/port';
import { Portgroup } from '../../../functions/objects/portgroup';
import { checkDuplicateSteps, TEMPLATE_SCHEMA } from '../../../functions/api/schemas/deploy-template';
import { argMac, isValidMac, normalizeLocalLink } from '../../../functions/api/schemas/port';
import { validatePort } from '../../../functions/api/controllers/port-common';
import { validateSchema } from '../../../functions/api/validation';
import { chassisView } from '../../../functions/api/views/chassis';
import { deployTemplateView } from '../../../functions/api/views/deploy-template';
import { checkPortFieldVersions, portView } from '../../../functions/api/views/port';
import { checkPortgroupFieldVersions, portgroupView } from '../../../functions/api/views/portgroup';
import { collectionNext, returnFields } from '../../../functions/api/resource-list';
import type { ApiRequest } from '../../../functions/api/http';

const BASE = 'http://api';
const v = (minor: number) => ({ major: 1, minor });
const NODE = '11111111-1111-4111-8111-111111111111';
const T0 = '2026-01-02T03:04:05.120Z';

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('did not throw');
}

describe('port view', () => {
  const port = new Port({ uuid: 'p1', node_uuid: NODE, address: '52:54:00:00:00:01', created_at: T0, physical_network: 'n' });

  it('shows each field from the version that added it', () => {
    expect(Object.keys(portView(port, { baseUrl: BASE, version: v(1) })).sort()).toEqual([
      'address',
      'created_at',
      'extra',
      'links',
      'node_uuid',
      'updated_at',
      'uuid',
    ]);
    const latest = portView(port, { baseUrl: BASE, version: v(82) });
    expect(latest).toMatchObject({
      internal_info: {},
      local_link_connection: {},
      pxe_enabled: true,
      portgroup_uuid: null,
      physical_network: 'n',
      is_smartnic: false,
      created_at: '2026-01-02T03:04:05.120000+00:00',
      links: [
        { href: `${BASE}/v1/ports/p1`, rel: 'self' },
        { href: `${BASE}/ports/p1`, rel: 'bookmark' },
      ],
    });
    expect(latest).not.toHaveProperty('name');
  });

  it('shows the name from 1.88, after node_uuid as Ironic orders it; below, `fields=name` is an unknown field', () => {
    const named = new Port({ ...port.toData(), name: 'eth0.rack1' });
    const view = portView(named, { baseUrl: BASE, version: v(88) });
    expect(view.name).toBe('eth0.rack1');
    expect(Object.keys(view).slice(-4)).toEqual(['node_uuid', 'name', 'links', 'portgroup_uuid']);
    expect(portView(port, { baseUrl: BASE, version: v(88) }).name).toBeNull();
    expect(portView(named, { baseUrl: BASE, version: v(88), fields: ['name'] })).toEqual({ name: 'eth0.rack1', links: expect.any(Array) });
    expect(portView(named, { baseUrl: BASE, version: v(87) })).not.toHaveProperty('name');
    expect(message(() => portView(named, { baseUrl: BASE, version: v(87), fields: ['name'] }))).toBe('Field(s) "name" are not valid');
  });

  it('keeps the selected fields and the links; names unknown fields', () => {
    expect(portView(port, { baseUrl: BASE, version: v(82), fields: ['address'] })).toEqual({
      address: '52:54:00:00:00:01',
      links: expect.any(Array),
    });
    expect(message(() => portView(port, { baseUrl: BASE, version: v(82), fields: ['address', 'bogus'] }))).toBe(
      'Field(s) "bogus" are not valid',
    );
  });

  it('refuses fields newer than the version with 406', () => {
    expect(() => checkPortFieldVersions(['physical_network'], v(34))).not.toThrow();
    expect(message(() => checkPortFieldVersions(['physical_network'], v(33)))).toBe('Request not acceptable.');
    expect(message(() => checkPortFieldVersions(['local_link_connection/network_type'], v(63)))).toBe('Request not acceptable.');
  });
});

describe('portgroup view', () => {
  it('shows mode and properties at every version, and its ports links', () => {
    const pg = new Portgroup({ uuid: 'g1', node_uuid: NODE, mode: 'active-backup', created_at: T0 });
    expect(portgroupView(pg, { baseUrl: BASE, version: v(82) })).toMatchObject({
      mode: 'active-backup',
      properties: {},
      ports: [
        { href: `${BASE}/v1/portgroups/g1/ports`, rel: 'self' },
        { href: `${BASE}/portgroups/g1/ports`, rel: 'bookmark' },
      ],
    });
    expect(message(() => checkPortgroupFieldVersions(['mode'], v(25)))).toBe('Request not acceptable.');
    expect(() => checkPortgroupFieldVersions(['mode'], v(26))).not.toThrow();
  });
});

describe('chassis view', () => {
  it('wraps the nodes links in a second list, as Ironic 21.4 does', () => {
    const chassis = new Chassis({ uuid: 'c1', created_at: T0 });
    expect(chassisView(chassis, { baseUrl: BASE }).nodes).toEqual([
      [
        { href: `${BASE}/v1/chassis/c1/nodes`, rel: 'self' },
        { href: `${BASE}/chassis/c1/nodes`, rel: 'bookmark' },
      ],
    ]);
    expect(chassisView(chassis, { baseUrl: BASE, fields: ['description'] })).toEqual({ description: null, links: expect.any(Array) });
  });
});

describe('deploy template view', () => {
  it('masks secrets in step arguments', () => {
    const template = new DeployTemplate({
      uuid: 't1',
      name: 'CUSTOM_A',
      created_at: T0,
      steps: [{ interface: 'bios', step: 's', args: { password: 'x', nested: { token: 'y', keep: 1 } }, priority: 1 }],
    });
    expect(deployTemplateView(template, { baseUrl: BASE }).steps).toEqual([
      { interface: 'bios', step: 's', args: { password: '******', nested: { token: '******', keep: 1 } }, priority: 1 },
    ]);
  });
});

describe('request validation', () => {
  it('accepts colon-separated MAC addresses only and lower-cases them', () => {
    expect(argMac('address', '52:54:00:AB:CD:EF')).toBe('52:54:00:ab:cd:ef');
    expect(isValidMac('52-54-00-ab-cd-ef')).toBe(false);
    expect(message(() => argMac('address', 'x'))).toBe('Expected valid MAC address for address: x');
  });

  it('normalizes a switch id given as MAC or datapath id, and refuses anything else', () => {
    const link: Record<string, unknown> = { switch_id: 'AA:BB:CC:DD:EE:FF', port_id: '1' };
    normalizeLocalLink(link);
    expect(link.switch_id).toBe('aa:bb:cc:dd:ee:ff');
    expect(message(() => normalizeLocalLink({ switch_id: 'nope', port_id: '1' }))).toBe(
      'Expected a MAC address or OpenFlow datapath ID but received nope.',
    );
  });

  it('validates a port body in Ironic’s order with its messages', () => {
    expect(message(() => validatePort('port', { node_uuid: NODE }, v(87)))).toBe("Schema error for port: 'address' is a required property");
    expect(message(() => validatePort('port', { node_uuid: 'n1', address: '52:54:00:00:00:01' }, v(87)))).toBe(
      'Expected UUID for node_uuid: n1',
    );
    expect(
      message(() =>
        validatePort('port', { node_uuid: NODE, address: '52:54:00:00:00:01', local_link_connection: { port_id: 'x' } }, v(87)),
      ),
    ).toBe(
      "Schema error for local_link_connection: {'port_id': 'x'} is not valid under any of the given schemas. Possible root cause: 'switch_id' is a required property",
    );
    expect(validatePort('port', { node_uuid: NODE, address: '52:54:00:00:00:0A', pxe_enabled: 'off' }, v(87))).toMatchObject({
      address: '52:54:00:00:00:0a',
      pxe_enabled: false,
    });
  });

  it('takes a port name from 1.88 only (below, an unknown property, as 21.4 answers)', () => {
    const body = () => ({ node_uuid: NODE, address: '52:54:00:00:00:01', name: 'eth0.rack1' });
    expect(message(() => validatePort('port', body(), v(87)))).toBe(
      "Schema error for port: Additional properties are not allowed ('name' was unexpected)",
    );
    expect(validatePort('port', body(), v(88))).toMatchObject({ name: 'eth0.rack1' });
    expect(message(() => validatePort('port', { ...body(), name: 7 }, v(88)))).toBe(
      "Schema error for port: 7 is not of type 'string', 'null'",
    );
  });

  it('checks deploy templates: trait names, step interfaces, duplicate steps', () => {
    const step = { interface: 'deploy', step: 'x', args: {}, priority: 1 };
    expect(() => validateSchema('template', TEMPLATE_SCHEMA, { name: 'CUSTOM_OK', steps: [step] })).not.toThrow();
    expect(message(() => validateSchema('template', TEMPLATE_SCHEMA, { name: 'CUSTOM_OK', steps: [] }))).toBe(
      'Schema error for template: [] is too short',
    );
    expect(message(() => validateSchema('template', TEMPLATE_SCHEMA, { name: 'CUSTOM_OK', steps: [{ ...step, interface: 'boot' }] }))).toBe(
      "Schema error for template: 'boot' is not one of ['vendor', 'power', 'management', 'firmware', 'deploy', 'bios', 'raid']",
    );
    // Ironic master's deploy step interfaces: firmware (the redfish update) and vendor too.
    for (const iface of ['firmware', 'vendor'])
      expect(() =>
        validateSchema('template', TEMPLATE_SCHEMA, { name: 'CUSTOM_OK', steps: [{ ...step, interface: iface }] }),
      ).not.toThrow();
    expect(message(() => checkDuplicateSteps([step, { ...step, priority: 2 }]))).toMatch(/Duplicates: interface: deploy, step: x\.$/);
  });
});

describe('lists', () => {
  const req = { baseUrl: BASE, version: v(82) } as ApiRequest;

  it('default fields unless fields or detail; detail needs 1.43', () => {
    expect(returnFields(req, undefined, undefined, ['uuid'])).toEqual(['uuid']);
    expect(returnFields(req, undefined, true, ['uuid'])).toBeUndefined();
    expect(message(() => returnFields({ ...req, version: v(42) } as ApiRequest, undefined, true, ['uuid']))).toBe(
      'Invalid query parameter ?detail=True received.',
    );
    expect(message(() => returnFields(req, ['uuid'], true, ['uuid']))).toBe('Can not specify ?detail=True and fields in the same request.');
  });

  it('links the next page when the page is full, with Ironic’s argument order', () => {
    const paging = { limit: 2, sortKey: 'id', sortDir: 'asc' as const };
    expect(collectionNext(req, 'ports', [{ uuid: 'a' }], paging, undefined, ['uuid'])).toBeUndefined();
    expect(collectionNext(req, 'ports', [{ uuid: 'a' }, { uuid: 'b' }], paging, false, ['uuid', 'address'])).toBe(
      `${BASE}/v1/ports?sort_key=id&sort_dir=asc&detail=False&fields=uuid,address&limit=2&marker=b`,
    );
  });
});
