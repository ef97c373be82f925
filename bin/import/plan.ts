/**
 * What `ironless fleet import` will write, decided against the tables before anything is written:
 * unique values another node or port already owns, chassis and parent nodes that must exist, a
 * conductor serving each driver and group, and nodes already there. A node whose UUID (or, when
 * none is given, name) is in the table with the same values the file gives is skipped with the
 * ports it already has, so a re-run after a failure writes only what is missing; one with other
 * values is refused.
 */
import { isDeepStrictEqual } from 'node:util';
import { ChassisNotFound, DuplicateName, Invalid, InstanceAssociated, MACAlreadyExists, NodeAlreadyExists } from '#common/errors';
import { PortDuplicateName } from '#common/errors';
import { isUuidLike } from '#common/ids';
import { guard } from '#db/keys';
import type { Node } from '#objects/node';
import type { Port } from '#objects/port';
import { noConductorFor } from '../../functions/rpc/ring';
import type { FileNode, NodeError } from './nodes-file';

/** What the plan reads from the tables (DynamoDB in `lookups.ts`, in memory in unit tests). */
export interface TableLookups {
  /** Stored nodes by UUID; missing ones are left out. */
  nodes(uuids: readonly string[]): Promise<Node[]>;
  /** Stored ports by UUID; missing ones are left out. */
  ports(uuids: readonly string[]): Promise<Port[]>;
  /** Which of these chassis exist. */
  chassis(uuids: readonly string[]): Promise<Set<string>>;
  /** The owner of each unique value (guard key) that is taken. */
  guardOwners(keys: readonly string[]): Promise<Map<string, string>>;
  /** The drivers and conductor groups registered conductors serve; undefined when none is registered. */
  served(): Promise<{ readonly driver: string; readonly group: string }[] | undefined>;
}

/** One node's writes: the node (unless it exists) and its ports that do not exist yet. */
export interface NodeWrite {
  readonly index: number;
  readonly node: Node;
  /** The node is in the table already (identically): only `ports` are written. */
  readonly exists: boolean;
  readonly ports: readonly Port[];
}

export interface ImportPlan {
  readonly writes: NodeWrite[];
  readonly errors: NodeError[];
  /** Nodes and ports in the table already, identically: not written again. */
  readonly skippedNodes: number;
  readonly skippedPorts: number;
  /** Things the operator should know that do not stop the import. */
  readonly warnings: string[];
}

/** The file's fields on which the stored node differs from the file's; empty when identical. */
export function differences(entry: FileNode, stored: Node): string[] {
  const wanted = entry.node.values();
  const have = stored.values();
  return entry.given.filter((field) => !isDeepStrictEqual(wanted[field] ?? null, have[field] ?? null));
}

const ident = (entry: FileNode) => entry.node.name ?? entry.node.uuid;

/** Decide what to write for nodes that passed the file's checks. */
export async function planImport(entries: readonly FileNode[], lookups: TableLookups): Promise<ImportPlan> {
  const warnings: string[] = [];
  const byFileName = new Map(entries.filter((e) => e.node.name).map((e) => [e.node.name as string, e]));
  const byFileUuid = new Map(entries.map((e) => [e.node.uuid, e]));

  const guardKeys = new Set<string>();
  for (const e of entries) {
    if (e.node.name) guardKeys.add(guard.nodeName(e.node.name));
    if (e.node.instance_uuid) guardKeys.add(guard.nodeInstance(e.node.instance_uuid));
    if (e.parent && !isUuidLike(e.parent) && !byFileName.has(e.parent)) guardKeys.add(guard.nodeName(e.parent));
    for (const p of e.ports) {
      if (p.address) guardKeys.add(guard.portAddress(p.address));
      if (p.name) guardKeys.add(guard.portName(p.name));
    }
  }
  const owners = await lookups.guardOwners([...guardKeys]);
  const nodeUuids = new Set<string>();
  for (const e of entries) {
    if (e.uuidGiven) nodeUuids.add(e.node.uuid);
    else if (e.node.name && owners.has(guard.nodeName(e.node.name))) nodeUuids.add(owners.get(guard.nodeName(e.node.name))!);
    if (e.parent && isUuidLike(e.parent) && !byFileUuid.has(e.parent)) nodeUuids.add(e.parent);
  }
  const stored = new Map((await lookups.nodes([...nodeUuids])).map((n) => [n.uuid, n]));
  const portOwners = new Set<string>();
  for (const e of entries) for (const p of e.ports) for (const key of portGuards(p)) if (owners.has(key)) portOwners.add(owners.get(key)!);
  const storedPorts = new Map((await lookups.ports([...portOwners])).map((p) => [p.uuid, p]));
  const chassisWanted = [...new Set(entries.flatMap((e) => (e.chassis ? [e.chassis] : [])))];
  const chassis = chassisWanted.length > 0 ? await lookups.chassis(chassisWanted) : new Set<string>();
  const served = await lookups.served();
  if (served === undefined) {
    warnings.push(
      'No conductor has registered in these tables yet: drivers and conductor groups were not checked against running conductors.',
    );
  }

  const writes: NodeWrite[] = [];
  const errors: NodeError[] = [];
  let skippedNodes = 0;
  let skippedPorts = 0;
  for (const e of entries) {
    try {
      const { node } = e;
      const nameOwner = node.name ? owners.get(guard.nodeName(node.name)) : undefined;
      const existing = e.uuidGiven ? stored.get(node.uuid) : nameOwner !== undefined ? stored.get(nameOwner) : undefined;
      if (e.parent) node.parent_node = parentOf(e.parent, byFileName, byFileUuid, owners, stored);
      if (existing) {
        const differ = differences(e, existing);
        if (differ.length > 0) {
          const refusal = e.uuidGiven ? new NodeAlreadyExists(existing.uuid) : new DuplicateName(node.name ?? '');
          throw new Error(`${refusal.message} It differs from the file in: ${differ.join(', ')}.`);
        }
        // The ports belong to the stored node (a node matched by name has the stored UUID).
        for (const p of e.ports) p.node_uuid = existing.uuid;
        node.uuid = existing.uuid;
      } else {
        if (nameOwner !== undefined) throw new DuplicateName(node.name ?? '');
        const instance = node.instance_uuid;
        if (instance && owners.has(guard.nodeInstance(instance))) throw new InstanceAssociated(instance, node.uuid);
        if (e.chassis && !chassis.has(e.chassis)) throw new ChassisNotFound(e.chassis);
        if (served && !served.some((s) => s.driver === node.driver && s.group === node.conductor_group)) {
          throw noConductorFor(node.driver, node.conductor_group);
        }
      }
      const ports: Port[] = [];
      for (const p of e.ports) {
        const owned = portGuards(p).map((key) => owners.get(key));
        if (owned.every((o) => o === undefined)) {
          ports.push(p);
          continue;
        }
        const found = owned.map((o) => (o === undefined ? undefined : storedPorts.get(o)));
        if (existing && found.every((f) => f !== undefined && f.node_uuid === existing.uuid && f.uuid === found[0]?.uuid)) {
          skippedPorts++;
          continue;
        }
        const addressTaken = p.address && owners.has(guard.portAddress(p.address));
        throw addressTaken ? new MACAlreadyExists(p.address ?? '') : new PortDuplicateName(p.name ?? '');
      }
      if (existing) skippedNodes++;
      if (!existing || ports.length > 0) writes.push({ index: e.index, node, exists: existing !== undefined, ports });
    } catch (err) {
      errors.push({ index: e.index, ident: ident(e), message: (err as Error).message });
    }
  }
  // A set, not a search of `entries` per write: that was quadratic (about 30 s at 100,000 nodes).
  const uuidGivenAt = new Set(entries.filter((e) => e.uuidGiven).map((e) => e.index));
  const anonymous = writes.filter((w) => !w.exists && !w.node.name && !uuidGivenAt.has(w.index)).length;
  if (anonymous > 0) {
    warnings.push(`${anonymous} node(s) have neither a UUID nor a name: a second import of this file creates them again.`);
  }
  return { writes, errors, skippedNodes, skippedPorts, warnings };
}

function portGuards(port: Port): string[] {
  const keys: string[] = [];
  if (port.address) keys.push(guard.portAddress(port.address));
  if (port.name) keys.push(guard.portName(port.name));
  return keys;
}

/** The UUID of a parent node named in the file or the table (Ironic's error when there is none). */
function parentOf(
  parent: string,
  byName: ReadonlyMap<string, FileNode>,
  byUuid: ReadonlyMap<string, FileNode>,
  owners: ReadonlyMap<string, string>,
  stored: ReadonlyMap<string, Node>,
): string {
  if (isUuidLike(parent)) {
    if (byUuid.has(parent) || stored.has(parent)) return parent;
  } else {
    const inFile = byName.get(parent);
    if (inFile) return inFile.node.uuid;
    const owner = owners.get(guard.nodeName(parent));
    if (owner !== undefined) return owner;
  }
  throw new Invalid(`Unable to apply the requested parent_node '${parent}'. Requested value was invalid.`);
}
