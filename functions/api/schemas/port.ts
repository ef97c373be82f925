/**
 * JSON schemas of port and portgroup requests, as Ironic 21.4 declares them (api/controllers/v1/
 * port.py PORT_SCHEMA, portgroup.py PORTGROUP_SCHEMA, utils.py LOCAL_LINK_CONN_SCHEMA), and the
 * MAC address and switch id checks that follow them.
 */
import { InvalidParameterValue } from '#common/errors';
import { pyStr } from '../args';
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

const PORT_SCHEMA_1_88: JsonSchema = {
  ...PORT_SCHEMA,
  properties: { ...(PORT_SCHEMA.properties as object), name: { type: ['string', 'null'] } },
};

/**
 * The port schema a request of this version is validated with. NOTE: below 1.88 `name` stays an
 * unknown property (400), as Ironic 21.4 and this API's 2026.3 release answer, where Ironic's later
 * releases answer 406: the differential suite and a pinned API keep what they served.
 */
export function portSchema(version: ApiVersion): JsonSchema {
  return atLeast(version, PORT_NAME_VERSION) ? PORT_SCHEMA_1_88 : PORT_SCHEMA;
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

const linkBase = (required: string[], networkTypes = ['managed', 'unmanaged']): JsonSchema => ({
  type: 'object',
  properties: {
    port_id: { type: 'string' },
    switch_id: { type: 'string' },
    hostname: { type: 'string' },
    switch_info: { type: 'string' },
    network_type: { type: 'string', enum: networkTypes },
  },
  additionalProperties: false,
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
