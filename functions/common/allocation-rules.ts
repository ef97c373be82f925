/**
 * Rules about allocations shared by the API (backfilling, deletion) and the conductor (the
 * allocation process), after Ironic's `conductor/allocations.py`. Pure functions over plain
 * shapes, so both sides use the same checks and messages.
 */
import { InvalidState } from './errors';
import { ACTIVE, AVAILABLE, UPDATE_ALLOWED_STATES } from './states';

/** The allocation states (Ironic's states.ALLOCATING, ACTIVE, ERROR). */
export const ALLOCATING = 'allocating';
export const ALLOCATION_ACTIVE = 'active';
export const ALLOCATION_ERROR = 'error';

interface NodeShape {
  readonly uuid: string;
  readonly maintenance: boolean;
  readonly instance_uuid: string | null;
  readonly provision_state: string;
  readonly target_provision_state: string | null;
  readonly resource_class: string | null;
  readonly traits: readonly string[];
  readonly power_state: string | null;
  readonly owner: string | null;
  readonly lessee: string | null;
}

interface AllocationShape {
  readonly uuid: string;
  readonly resource_class: string | null;
  readonly traits: readonly string[] | null;
  readonly candidate_nodes: readonly string[] | null;
  readonly owner: string | null;
}

/** Whether the node has every trait the allocation asks for. */
export function traitsMatch(traits: readonly string[] | null, node: Pick<NodeShape, 'traits'>): boolean {
  return (traits ?? []).every((t) => node.traits.includes(t));
}

/**
 * Whether a node can be given to an allocation now (Ironic's candidate filters plus `_verify_node`):
 * available, powered (a known power state), not in maintenance, not associated, of the resource
 * class, with the traits, among the candidates, and the owner's (owner or lessee) when it has one.
 */
export function nodeSuits(node: NodeShape, allocation: AllocationShape): boolean {
  if (node.maintenance || node.instance_uuid || node.provision_state !== AVAILABLE || node.power_state === null) return false;
  if (node.resource_class !== allocation.resource_class) return false;
  if (allocation.candidate_nodes && allocation.candidate_nodes.length > 0 && !allocation.candidate_nodes.includes(node.uuid)) return false;
  if (allocation.owner && node.owner !== allocation.owner && node.lessee !== allocation.owner) return false;
  return traitsMatch(allocation.traits, node);
}

/** Why a backfill cannot take this node (Ironic's `_do_backfill_allocation` checks), or none. */
export function backfillErrors(node: NodeShape, allocation: AllocationShape): string[] {
  const errors: string[] = [];
  if (node.provision_state !== ACTIVE) {
    errors.push(`Node must be in the "active" state, but the current state is "${node.provision_state}"`);
  }
  if (allocation.resource_class && node.resource_class !== allocation.resource_class) {
    errors.push(`Resource class ${String(node.resource_class)} does not match the requested resource class ${allocation.resource_class}`);
  }
  if (allocation.traits && allocation.traits.length > 0 && !traitsMatch(allocation.traits, node)) {
    errors.push(`List of traits ${pyList(node.traits)} does not match the requested traits ${pyList(allocation.traits)}`);
  }
  if (allocation.candidate_nodes && allocation.candidate_nodes.length > 0 && !allocation.candidate_nodes.includes(node.uuid)) {
    errors.push(`Candidate nodes must be empty or contain the target node, but got ${pyList(allocation.candidate_nodes)}`);
  }
  return errors;
}

/** Refuse to remove a node's allocation while the node is busy or active (Ironic's verify_node_for_deallocation). */
export function verifyNodeForDeallocation(node: NodeShape, allocation: Pick<AllocationShape, 'uuid'>): void {
  if (node.maintenance) return;
  if (node.target_provision_state && !UPDATE_ALLOWED_STATES.includes(node.provision_state)) {
    throw new InvalidState(
      `Cannot remove allocation ${allocation.uuid} for node ${node.uuid}, because the node is in state ${node.provision_state} where updates are not allowed (and maintenance mode is off)`,
    );
  }
  if (node.provision_state === ACTIVE) {
    throw new InvalidState(
      `Cannot remove allocation ${allocation.uuid} for node ${node.uuid}, because the node is active (and maintenance mode is off)`,
    );
  }
}

/** Python's repr of a list of strings, as Ironic prints lists into messages. */
function pyList(items: readonly string[]): string {
  return `[${items.map((i) => `'${i}'`).join(', ')}]`;
}
