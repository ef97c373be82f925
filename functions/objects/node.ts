/**
 * The bare-metal node, after Ironic's `ironic/objects/node.py`. Field names and types are Ironic's;
 * where Ironic keeps integer foreign keys (chassis_id, allocation_id) Ironless keeps the UUIDs the
 * API shows, and traits live on the node item as a list of strings.
 */
import { InvalidState } from '#common/errors';
import { type ProvisionEvent, transition } from '#common/states';
import { VersionedObject, type VersionStep } from './base';
import { type FieldValues, t } from './fields';

export const NODE_FIELDS = {
  uuid: t.uuid(),
  name: t.string({ nullable: true }),
  instance_uuid: t.uuid({ nullable: true }),
  // The instance's display name (Ironic's Node 1.43, API 1.104).
  instance_name: t.string({ nullable: true }),
  chassis_uuid: t.uuid({ nullable: true }),
  allocation_uuid: t.uuid({ nullable: true }),
  parent_node: t.string({ nullable: true }),

  driver: t.string(),
  driver_info: t.dict({ default: {} }),
  driver_internal_info: t.dict({ default: {} }),
  instance_info: t.dict({ default: {} }),
  properties: t.dict({ default: {} }),
  extra: t.dict({ default: {} }),
  network_data: t.dict({ default: {} }),

  // The step being executed, or null when that process is not running.
  clean_step: t.dict({ nullable: true }),
  deploy_step: t.dict({ nullable: true }),
  service_step: t.dict({ nullable: true }),
  raid_config: t.dict({ default: {} }),
  target_raid_config: t.dict({ default: {} }),

  // Holder of the node lock (a conductor hostname), null when unlocked.
  reservation: t.string({ nullable: true }),
  conductor_group: t.string({ default: '' }),

  power_state: t.string({ nullable: true }),
  target_power_state: t.string({ nullable: true }),
  provision_state: t.string(),
  target_provision_state: t.string({ nullable: true }),
  provision_updated_at: t.datetime({ nullable: true }),

  maintenance: t.boolean({ default: false }),
  maintenance_reason: t.string({ nullable: true }),
  fault: t.string({ nullable: true }),
  console_enabled: t.boolean({ default: false }),
  // Never power the node off (Ironic's Node 1.41, API 1.95): reboots stand in for power off.
  disable_power_off: t.boolean({ default: false }),
  // The hardware's health as its BMC reports it (Ironic's Node 1.44, API 1.109): OK, Warning,
  // Critical; null when the management interface does not tell.
  health: t.string({ nullable: true }),
  // Error of the most recent asynchronous action that started but failed to finish.
  last_error: t.string({ nullable: true }),

  resource_class: t.string({ nullable: true }),
  inspection_started_at: t.datetime({ nullable: true }),
  inspection_finished_at: t.datetime({ nullable: true }),
  automated_clean: t.boolean({ nullable: true }),
  protected: t.boolean({ default: false }),
  protected_reason: t.string({ nullable: true }),
  retired: t.boolean({ default: false }),
  retired_reason: t.string({ nullable: true }),
  owner: t.string({ nullable: true }),
  lessee: t.string({ nullable: true }),
  description: t.string({ nullable: true }),
  shard: t.string({ nullable: true }),
  boot_mode: t.string({ nullable: true }),
  secure_boot: t.boolean({ nullable: true }),
  traits: t.stringList({ default: [] }),

  bios_interface: t.string({ nullable: true }),
  boot_interface: t.string({ nullable: true }),
  console_interface: t.string({ nullable: true }),
  deploy_interface: t.string({ nullable: true }),
  firmware_interface: t.string({ nullable: true }),
  inspect_interface: t.string({ nullable: true }),
  management_interface: t.string({ nullable: true }),
  network_interface: t.string({ nullable: true }),
  power_interface: t.string({ nullable: true }),
  raid_interface: t.string({ nullable: true }),
  rescue_interface: t.string({ nullable: true }),
  storage_interface: t.string({ nullable: true }),
  vendor_interface: t.string({ nullable: true }),

  created_at: t.datetime(),
  updated_at: t.datetime({ nullable: true }),
} as const;

export type NodeData = FieldValues<typeof NODE_FIELDS>;

/** The hardware interfaces a node names, in Ironic's order. */
export const NODE_INTERFACES = [
  'bios',
  'boot',
  'console',
  'deploy',
  'firmware',
  'inspect',
  'management',
  'network',
  'power',
  'raid',
  'rescue',
  'storage',
  'vendor',
] as const;
export type InterfaceType = (typeof NODE_INTERFACES)[number];

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- field accessors are installed at runtime
export interface Node extends NodeData {}

/** Longest instance name Ironic stores (its column and its API 1.104 schema). */
export const INSTANCE_NAME_MAX_LENGTH = 255;

/**
 * The instance name `instance_info` implies: its `display_name` (what nova sets) when that is a
 * non-empty string, cut to the longest name Ironic stores; null otherwise.
 */
export function instanceNameOf(instanceInfo: unknown): string | null {
  const name = (instanceInfo as { display_name?: unknown } | null)?.display_name;
  if (typeof name !== 'string' || name === '') return null;
  const chars = Array.from(name);
  return chars.length > INSTANCE_NAME_MAX_LENGTH ? chars.slice(0, INSTANCE_NAME_MAX_LENGTH).join('') : name;
}

// Version 1.0: initial version (Ironic's node fields through API 1.87, UUID references).
// Version 1.1: instance_name added (Ironic's Node 1.43); for older data it is computed from
//   instance_info's display_name, on read and by `dbsync online-data-migrations`.
// Version 1.2: disable_power_off (Ironic's Node 1.41) and health (Ironic's Node 1.44) added;
//   older data reads as false and null, and a write at 1.1 drops them as Ironic's storage does.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class Node extends VersionedObject {
  static override readonly objName = 'Node';
  static override readonly VERSION = '1.2';
  static override readonly fields = NODE_FIELDS;
  static override readonly history: readonly VersionStep[] = [
    { version: '1.0' },
    {
      version: '1.1',
      added: ['instance_name'],
      up: (data) => {
        data.instance_name = instanceNameOf(data.instance_info);
      },
    },
    { version: '1.2', added: ['disable_power_off', 'health'] },
  ];

  constructor(data?: Record<string, unknown>) {
    super(data);
    if (data !== undefined && 'instance_info' in data && !('instance_name' in data)) this.syncInstanceName();
  }

  /**
   * Ironic's forward compatibility for nova (API 1.104): when instance_info changes and the node
   * has no instance name yet, its display_name becomes the name. A name already set is kept;
   * tearing the instance down clears it (`instance_name = null` with `instance_info = {}`).
   */
  override markChanged(field: string): void {
    super.markChanged(field);
    if (field === 'instance_info') this.syncInstanceName();
  }

  private syncInstanceName(): void {
    if (this.instance_name !== null) return;
    const name = instanceNameOf(this.instance_info);
    if (name !== null) this.instance_name = name;
  }

  /**
   * Move through the provisioning state machine (`#common/states`): provision_state,
   * target_provision_state and provision_updated_at change together, or InvalidState if the
   * table has no such transition. `target` is Ironic's `target_state`: the flow's target when it
   * is not the new state's declared one (manual cleaning: manageable); by default the node's.
   */
  processEvent(event: ProvisionEvent, target: string | null = this.target_provision_state): void {
    const result = transition(this.provision_state, event, target);
    if (result === undefined) {
      throw new InvalidState(`Node ${this.uuid}: event "${event}" is not allowed in state "${this.provision_state}"`);
    }
    if (!stateEnteredAt.has(this)) stateEnteredAt.set(this, this.provision_updated_at);
    this.provision_state = result.provisionState;
    this.target_provision_state = result.targetProvisionState;
    this.provision_updated_at = new Date().toISOString();
  }
}

/** A node's provision_updated_at before the first `processEvent` on that copy of it. */
const stateEnteredAt = new WeakMap<Node, string | null>();

/**
 * When this copy of the node entered the state it was loaded in: its provision_updated_at before
 * any transition made on it since (node history's `duration_seconds` measures from it).
 */
export function loadedStateSince(node: Node): string | null {
  return stateEnteredAt.has(node) ? (stateEnteredAt.get(node) ?? null) : node.provision_updated_at;
}
