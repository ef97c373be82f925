/**
 * A node allocation request, after Ironic's `ironic/objects/allocation.py` (21.4: Allocation 1.1).
 * Ironic's integer references become UUIDs (`node_id` → `node_uuid`) and a hostname
 * (`conductor_affinity`, the conductor that handles it). `name` is unique.
 */
import { VersionedObject, type VersionStep } from './base';
import { type FieldValues, t } from './fields';

export const ALLOCATION_FIELDS = {
  uuid: t.uuid(),
  name: t.string({ nullable: true }),
  node_uuid: t.uuid({ nullable: true }),
  // allocating | active | error (Ironic's states.ALLOCATING, ACTIVE, ERROR).
  state: t.string({ nullable: true }),
  last_error: t.string({ nullable: true }),
  resource_class: t.string({ nullable: true }),
  traits: t.stringList({ nullable: true }),
  candidate_nodes: t.stringList({ nullable: true }),
  extra: t.dict({ default: {} }),
  conductor_affinity: t.string({ nullable: true }),
  owner: t.string({ nullable: true }),
  created_at: t.datetime(),
  updated_at: t.datetime({ nullable: true }),
} as const;

export type AllocationData = FieldValues<typeof ALLOCATION_FIELDS>;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- field accessors are installed at runtime
export interface Allocation extends AllocationData {}

// Version 1.0: initial version (Ironic's Allocation 1.1 fields, UUID references).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class Allocation extends VersionedObject {
  static override readonly objName = 'Allocation';
  static override readonly VERSION = '1.0';
  static override readonly fields = ALLOCATION_FIELDS;
  static override readonly history: readonly VersionStep[] = [{ version: '1.0' }];
}
