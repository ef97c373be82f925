/** JSON schema of a node in a create request (Ironic's `node_schema()` in api/controllers/v1/node.py). */
import type { JsonSchema } from '../validation';

const stringOrNull = { type: ['string', 'null'] };
const boolish = { type: ['string', 'boolean', 'null'] };
const objectOrNull = { type: ['object', 'null'] };

export const NODE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    automated_clean: boolish,
    bios_interface: stringOrNull,
    boot_interface: stringOrNull,
    boot_mode: stringOrNull,
    chassis_uuid: stringOrNull,
    conductor_group: stringOrNull,
    console_enabled: boolish,
    console_interface: stringOrNull,
    deploy_interface: stringOrNull,
    description: { type: ['string', 'null'], maxLength: 4096 },
    driver: { type: 'string' },
    driver_info: objectOrNull,
    extra: objectOrNull,
    firmware_interface: stringOrNull,
    inspect_interface: stringOrNull,
    instance_info: objectOrNull,
    instance_uuid: stringOrNull,
    lessee: stringOrNull,
    management_interface: stringOrNull,
    maintenance: boolish,
    name: stringOrNull,
    network_data: objectOrNull,
    network_interface: stringOrNull,
    owner: stringOrNull,
    parent_node: stringOrNull,
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
  },
  required: ['driver'],
  additionalProperties: false,
};
