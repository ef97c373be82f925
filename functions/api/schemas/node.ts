/**
 * JSON schemas of node requests, as Ironic declares them (api/controllers/v1/node.py
 * `node_schema()`, `node_patch_schema()`, TRAITS_SCHEMA; ironic/common/args.py `patch`).
 */
import { PYTHON_PATTERN, type JsonSchema } from '../validation';
import { INSTANCE_NAME_MAX_LENGTH } from '#objects/node';
import { STANDARD_TRAITS } from './standard-traits';

const stringOrNull = { type: ['string', 'null'] };
const boolish = { type: ['string', 'boolean', 'null'] };
const objectOrNull = { type: ['object', 'null'] };

/** Maximum length of a node's description. */
export const NODE_DESCRIPTION_MAX_LENGTH = 4096;

/**
 * Ironic checks a non-empty network_data against Nova's network_data schema. Ironless checks its
 * outline (the three lists a network_data document must have); see README, Known differences.
 */
export const NETWORK_DATA_OUTLINE: JsonSchema = {
  type: 'object',
  required: ['links', 'networks', 'services'],
  properties: { links: { type: 'array' }, networks: { type: 'array' }, services: { type: 'array' } },
};

export const NETWORK_DATA_SCHEMA: JsonSchema = {
  anyOf: [{ type: 'null' }, { type: 'object', additionalProperties: false }, NETWORK_DATA_OUTLINE],
};

const NODE_PROPERTIES = {
  automated_clean: boolish,
  bios_interface: stringOrNull,
  boot_interface: stringOrNull,
  boot_mode: stringOrNull,
  chassis_uuid: stringOrNull,
  conductor_group: stringOrNull,
  console_enabled: boolish,
  console_interface: stringOrNull,
  deploy_interface: stringOrNull,
  description: { type: ['string', 'null'], maxLength: NODE_DESCRIPTION_MAX_LENGTH },
  disable_power_off: boolish,
  driver: { type: 'string' },
  driver_info: objectOrNull,
  extra: objectOrNull,
  firmware_interface: stringOrNull,
  inspect_interface: stringOrNull,
  instance_info: objectOrNull,
  instance_name: { type: ['string', 'null'], minLength: 1, maxLength: INSTANCE_NAME_MAX_LENGTH },
  instance_uuid: stringOrNull,
  lessee: stringOrNull,
  management_interface: stringOrNull,
  maintenance: boolish,
  name: stringOrNull,
  network_data: NETWORK_DATA_SCHEMA,
  network_interface: stringOrNull,
  owner: stringOrNull,
  parent_node: { type: ['string', 'null'], maxLength: 36 },
  power_interface: stringOrNull,
  properties: objectOrNull,
  raid_interface: stringOrNull,
  rescue_interface: stringOrNull,
  resource_class: { type: ['string', 'null'], maxLength: 80 },
  retired: boolish,
  retired_reason: stringOrNull,
  secure_boot: boolish,
  shard: stringOrNull,
  storage_interface: stringOrNull,
  uuid: stringOrNull,
  vendor_interface: stringOrNull,
};

export const NODE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: NODE_PROPERTIES,
  required: ['driver'],
  additionalProperties: false,
};

/** The node after a PATCH is applied: the create schema plus the fields only PATCH sets. */
export const NODE_PATCH_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { ...NODE_PROPERTIES, protected: boolish, protected_reason: stringOrNull },
  required: ['driver'],
  additionalProperties: false,
};

/** A JSON patch document as Ironic accepts it: add, replace and remove on plain paths. */
export const PATCH_SCHEMA: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      // Python's \w also matches non-ASCII letters and digits.
      path: { type: 'string', pattern: '^(/[\\p{L}\\p{N}_-]+)+$', [PYTHON_PATTERN]: '^(/[\\w-]+)+$' },
      op: { type: 'string', enum: ['add', 'replace', 'remove'] },
      value: {},
    },
    additionalProperties: false,
    required: ['op', 'path'],
  },
};

export const CUSTOM_TRAIT_PATTERN = '^CUSTOM_[A-Z0-9_]+$';

/** One trait: a standard trait name or CUSTOM_…, at most 255 characters. */
export const TRAIT_SCHEMA: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  anyOf: [{ pattern: CUSTOM_TRAIT_PATTERN }, { enum: STANDARD_TRAITS }],
};

/** The body of `PUT /v1/nodes/{node}/traits`. */
export const TRAITS_BODY_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { traits: { type: 'array', items: TRAIT_SCHEMA } },
  additionalProperties: false,
};
