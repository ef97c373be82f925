/**
 * One event in a node's history (API 1.78), after Ironic's `ironic/objects/node_history.py` (21.4:
 * NodeHistory 1.0), with the node referenced by UUID. Records are written by the conductor when a
 * node fails or an operator-visible event happens, and read newest last.
 */
import { VersionedObject, type VersionStep } from './base';
import { type FieldValues, t } from './fields';

export const NODE_HISTORY_FIELDS = {
  uuid: t.uuid(),
  node_uuid: t.uuid(),
  conductor: t.string({ nullable: true }),
  event: t.string({ nullable: true }),
  user: t.string({ nullable: true }),
  // e.g. "provisioning", "deployment", "cleaning", "maintenance" (Ironic's states.*_EVENT names).
  event_type: t.string({ nullable: true }),
  // "ERROR", "WARNING" or "INFO".
  severity: t.string({ nullable: true }),
  // 1.1 (API 1.113, 1.115): the project that caused the event (Ironic records none today), and
  // the node's provision state, target state and seconds since it entered that state, at the event.
  project: t.string({ nullable: true }),
  state: t.string({ nullable: true }),
  target_provision_state: t.string({ nullable: true }),
  duration_seconds: t.integer({ nullable: true }),
  created_at: t.datetime(),
  updated_at: t.datetime({ nullable: true }),
} as const;

export type NodeHistoryData = FieldValues<typeof NODE_HISTORY_FIELDS>;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- field accessors are installed at runtime
export interface NodeHistory extends NodeHistoryData {}

// Version 1.0: initial version (Ironic's NodeHistory 1.0 fields, UUID references).
// Version 1.1: project, state, target_provision_state and duration_seconds (Ironic's 1.2 and 1.3;
//   older records have them null, as Ironic's do).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class NodeHistory extends VersionedObject {
  static override readonly objName = 'NodeHistory';
  static override readonly VERSION = '1.1';
  static override readonly fields = NODE_HISTORY_FIELDS;
  static override readonly history: readonly VersionStep[] = [
    { version: '1.0' },
    { version: '1.1', added: ['project', 'state', 'target_provision_state', 'duration_seconds'] },
  ];
}
