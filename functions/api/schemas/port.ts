/**
 * JSON schemas of port and portgroup requests, as Ironic 21.4 declares them (api/controllers/v1/
 * port.py PORT_SCHEMA, portgroup.py PORTGROUP_SCHEMA, utils.py LOCAL_LINK_CONN_SCHEMA) and, from
 * API 1.88 on, as Ironic master does; and the MAC address and switch id checks that follow them.
 */
import { InvalidParameterValue } from '#common/errors';
import { pyStr } from '#common/pyrepr';
import { type ApiVersion, atLeast } from '../microversion';
import { type JsonSchema } from '../validation';

const boolish = { type: ['string', 'boolean', 'null'] };

export const PORT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    address: { type: 'string' },
    extra: { type: ['object', 'null'] },
    is_smartnic: boolish,
    local_link_connection: { type: ['null', 'object'] },
    node_uuid: { type: 'string' },
    physical_network: { type: ['string', 'null'], maxLength: 64 },
    portgroup_uuid: { type: ['string', 'null'] },
    pxe_enabled: boolish,
    uuid: { type: ['string', 'null'] },
  },
  required: ['address', 'node_uuid'],
  additionalProperties: false,
};

/** API 1.88 added the port's `name` (any string, unique among ports; Ironic checks nothing more). */
export const PORT_NAME_VERSION = 88;

/**
 * Port and portgroup features of API 1.89–1.115 (Ironic master), by the minor version that added
 * them. NOTE: below 1.88 requests stay those of the 2026.3 release (Ironic 21.4's schemas): these
 * names are unknown properties and arguments there (400). From 1.88 on the schemas are Ironic
 * master's and a feature named below its version is 406 — also where master's code forgets the
 * check (PATCH of the new port fields, portgroup physical_network and category, the
 * conductor_groups filter), as its api-ref documents the version.
 */
export const PORT_VERSIONS = {
  ovnVtep: 90,
  nodeIdent: 94,
  description: 97,
  conductorGroups: 99,
  vendor: 100,
  category: 101,
  portgroupPhysicalNetwork: 102,
  portgroupCategory: 103,
  ovnVtepRemoved: 105,
  portgroupShard: 106,
  dynamicPortgroup: 111,
} as const;

/** Whether a request of this version may name OVN VTEP switches in local_link_connection (1.90–1.104). */
export function allowOvnVtep(version: ApiVersion): boolean {
  return atLeast(version, PORT_VERSIONS.ovnVtep) && !atLeast(version, PORT_VERSIONS.ovnVtepRemoved);
}

/** The keys of an OVN VTEP link (API 1.90, removed again in 1.105). */
export const OVN_VTEP_KEYS = ['vtep-logical-switch', 'vtep-physical-switch'] as const;

const PORT_SCHEMA_1_88: JsonSchema = {
  ...PORT_SCHEMA,
  properties: { ...(PORT_SCHEMA.properties as object), name: { type: ['string', 'null'] } },
};

/** Ironic master's: the node by `node_uuid` or (1.94) `node_ident`, and the 1.97–1.111 fields. */
const PORT_SCHEMA_MASTER: JsonSchema = {
  ...PORT_SCHEMA_1_88,
  properties: {
    ...(PORT_SCHEMA_1_88.properties as object),
    node_ident: { type: 'string' },
    description: { type: ['string', 'null'], maxLength: 255 },
    vendor: { type: ['string', 'null'], maxLength: 32 },
    category: { type: ['string', 'null'], maxLength: 80 },
    available_for_dynamic_portgroup: { type: 'boolean' },
  },
  required: ['address'],
  oneOf: [{ required: ['node_ident'] }, { required: ['node_uuid'] }],
};

/**
 * The port schema a request of this version is validated with. NOTE: below 1.88 `name` stays an
 * unknown property (400), as Ironic 21.4 and this API's 2026.3 release answer, where Ironic's later
 * releases answer 406: the differential suite and a pinned API keep what they served.
 */
export function portSchema(version: ApiVersion): JsonSchema {
  return atLeast(version, PORT_NAME_VERSION) ? PORT_SCHEMA_MASTER : PORT_SCHEMA;
}

export const PORTGROUP_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    address: { type: ['string', 'null'] },
    extra: { type: ['object', 'null'] },
    mode: { type: ['string', 'null'] },
    name: { type: ['string', 'null'] },
    node_uuid: { type: 'string' },
    properties: { type: ['object', 'null'] },
    standalone_ports_supported: boolish,
    uuid: { type: ['string', 'null'] },
  },
  required: ['node_uuid'],
  additionalProperties: false,
};

/** Ironic master's portgroup schema: physical_network (1.102) and category (1.103) added. */
const PORTGROUP_SCHEMA_MASTER: JsonSchema = {
  ...PORTGROUP_SCHEMA,
  properties: {
    ...(PORTGROUP_SCHEMA.properties as object),
    category: { type: ['string', 'null'], maxLength: 80 },
    physical_network: { type: ['string', 'null'], maxLength: 64 },
  },
};

/** The portgroup schema a request of this version is validated with (see PORT_VERSIONS). */
export function portgroupSchema(version: ApiVersion): JsonSchema {
  return atLeast(version, PORT_NAME_VERSION) ? PORTGROUP_SCHEMA_MASTER : PORTGROUP_SCHEMA;
}

const LINK_PROPERTIES = {
  port_id: { type: 'string' },
  switch_id: { type: 'string' },
  hostname: { type: 'string' },
  switch_info: { type: 'string' },
};

const linkBase = (required: string[], networkTypes = ['managed', 'unmanaged'], vtep = false): JsonSchema => ({
  type: 'object',
  properties: {
    ...LINK_PROPERTIES,
    network_type: { type: 'string', enum: networkTypes },
    ...(vtep ? { 'vtep-logical-switch': { type: 'string' }, 'vtep-physical-switch': { type: 'string' } } : {}),
  },
  additionalProperties: false,
  // Ironic master's dependentRequired, in the draft-07 spelling Ajv knows (same message).
  ...(vtep ? { dependencies: { 'vtep-logical-switch': ['vtep-physical-switch'], 'vtep-physical-switch': ['vtep-logical-switch'] } } : {}),
  required,
});

/** A smart NIC's link must name its port and host. */
export const LOCAL_LINK_SMART_NIC_SCHEMA = linkBase(['port_id', 'hostname']);

/** A port's local_link_connection: a switch port, a smart NIC, an unmanaged network, or empty. */
export const LOCAL_LINK_CONN_SCHEMA: JsonSchema = {
  anyOf: [
    linkBase(['port_id', 'switch_id']),
    LOCAL_LINK_SMART_NIC_SCHEMA,
    linkBase(['network_type'], ['unmanaged']),
    { type: 'object', additionalProperties: false },
  ],
};

const SMART_NIC_LINK_MASTER = linkBase(['port_id', 'hostname'], undefined, true);

/**
 * Ironic master's: every kind may also name an OVN VTEP switch pair, and an OVN VTEP link (port_id
 * and both switches) is a kind of its own. The schema stays the same in every version; which
 * versions may name the VTEP keys is checked apart (1.90–1.104, `allowOvnVtep`).
 */
const LOCAL_LINK_CONN_SCHEMA_MASTER: JsonSchema = {
  anyOf: [
    linkBase(['port_id', 'switch_id'], undefined, true),
    SMART_NIC_LINK_MASTER,
    linkBase(['network_type'], ['unmanaged'], true),
    linkBase(['port_id', ...OVN_VTEP_KEYS], undefined, true),
    { type: 'object', additionalProperties: false },
  ],
};

/** The local_link_connection schema of a request at this version (see PORT_VERSIONS). */
export function localLinkSchema(version: ApiVersion): JsonSchema {
  return atLeast(version, PORT_NAME_VERSION) ? LOCAL_LINK_CONN_SCHEMA_MASTER : LOCAL_LINK_CONN_SCHEMA;
}

/** The smart NIC link schema of a request at this version (Ironic master's knows the VTEP keys). */
export function smartNicLinkSchema(version: ApiVersion): JsonSchema {
  return atLeast(version, PORT_NAME_VERSION) ? SMART_NIC_LINK_MASTER : LOCAL_LINK_SMART_NIC_SCHEMA;
}

/** Whether a link names an OVN VTEP switch. */
export function hasOvnVtep(link: unknown): boolean {
  return link !== null && typeof link === 'object' && OVN_VTEP_KEYS.some((k) => k in link);
}

/** oslo's is_valid_mac: six colon-separated octets, any case (Python's `$` allows a final newline). */
export function isValidMac(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{2}(:[0-9a-f]{2}){5}\n?$/.test(value.toLowerCase());
}

/** Ironic's args.mac_address: the address lower-cased, or its 400. */
export function argMac(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isValidMac(value)) throw new InvalidParameterValue(`Expected valid MAC address for ${name}: ${pyStr(value)}`);
  return value.toLowerCase();
}

/** A switch_id is a MAC address or an OpenFlow datapath id, stored lower-cased (Ironic's local_link_normalize). */
export function normalizeLocalLink(value: Record<string, unknown> | null | undefined): void {
  if (!value || Object.keys(value).length === 0 || !('switch_id' in value)) return;
  const id = value.switch_id;
  if (isValidMac(id)) value.switch_id = id.toLowerCase();
  else if (typeof id === 'string' && /^[0-9a-f]{16}\n?$/.test(id)) value.switch_id = id.toLowerCase();
  else throw new InvalidParameterValue(`Expected a MAC address or OpenFlow datapath ID but received ${pyStr(id)}.`);
}
