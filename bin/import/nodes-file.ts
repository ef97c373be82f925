/**
 * The nodes file of `ironless fleet import`, read and checked without touching the tables: each
 * node is a `POST /v1/nodes` body, built by the API's own create code (`#api/node-create`), so it
 * gets the same defaults, state and messages; its `ports` are `POST /v1/ports` bodies without
 * `node_uuid`, as `openstack baremetal create` takes them. Values that must be unique (node
 * UUIDs, names and instance UUIDs; port UUIDs, MAC addresses and names) are checked across the
 * file here, and against the tables in `plan.ts`.
 */
import { ClientSideError, DuplicateName, InvalidParameterValue, MACAlreadyExists, NodeAlreadyExists } from '#common/errors';
import { PortAlreadyExists, PortDuplicateName, InstanceAssociated } from '#common/errors';
import { guard } from '#db/keys';
import { getHardwareType } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { Port } from '#objects/port';
import { checkNewPort, newPort, validatePort } from '../../functions/api/controllers/port-common';
import type { ApiVersion } from '../../functions/api/microversion';
import { checkCreateBody, newNode } from '../../functions/api/node-create';
import { noConductorFor } from '../../functions/rpc/ring';

/** One node of the file, built as the API would create it. */
export interface FileNode {
  /** Position in the file, from 0. */
  readonly index: number;
  readonly node: Node;
  readonly ports: readonly Port[];
  /** The node's UUID was given (a re-run finds the same node). */
  readonly uuidGiven: boolean;
  /** The fields the file sets, as the API normalised them: what "exists identically" compares. */
  readonly given: readonly string[];
  /** `chassis_uuid` and `parent_node` as given: they must exist (checked in `plan.ts`). */
  readonly chassis?: string;
  readonly parent?: string;
}

/** A node the import refuses: where it is in the file and why, in Ironic's words. */
export interface NodeError {
  readonly index: number;
  /** The node's name or UUID as given, or "-". */
  readonly ident: string;
  readonly message: string;
}

export interface CheckedFile {
  readonly nodes: FileNode[];
  readonly errors: NodeError[];
}

/** Keys of a file node that are the import's, not the node's. */
const PORTS_KEY = 'ports';

/**
 * The nodes of a file: a JSON list of node bodies, or `{"nodes": [...]}` as `openstack baremetal
 * create` reads. Throws with what is wrong when the file is not one of these.
 */
export function parseNodesFile(text: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`The file is not JSON: ${(err as Error).message}`);
  }
  if (Array.isArray(parsed)) return parsed;
  if (parsed !== null && typeof parsed === 'object' && Array.isArray((parsed as { nodes?: unknown }).nodes)) {
    const other = Object.keys(parsed).filter((key) => key !== 'nodes');
    if (other.length > 0) throw new Error(`Only nodes (with their ports) are imported; the file also has: ${other.join(', ')}`);
    return (parsed as { nodes: unknown[] }).nodes;
  }
  throw new Error('The file must hold a JSON list of nodes, or an object {"nodes": [...]}');
}

function identOf(raw: unknown): string {
  if (raw === null || typeof raw !== 'object') return '-';
  const { name, uuid } = raw as { name?: unknown; uuid?: unknown };
  if (typeof name === 'string' && name !== '') return name;
  if (typeof uuid === 'string' && uuid !== '') return uuid;
  return '-';
}

function messageOf(err: unknown): string {
  if (err instanceof Error && 'code' in err && typeof (err as { code: unknown }).code === 'number') return err.message;
  throw err;
}

/** One node body (and its ports) built as `POST /v1/nodes` and `POST /v1/ports` would. */
export function checkFileNode(raw: unknown, index: number, version: ApiVersion): FileNode {
  let body: unknown = raw;
  let rawPorts: unknown[] = [];
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const { [PORTS_KEY]: ports, ...rest } = structuredClone(raw) as Record<string, unknown>;
    body = rest;
    if (ports !== undefined && ports !== null) {
      if (!Array.isArray(ports)) throw new InvalidParameterValue(`"ports" must be a list of ports, not ${JSON.stringify(ports)}`);
      rawPorts = ports;
    }
  }
  const checked = checkCreateBody(body, version);
  const { uuid, group } = checked;
  const driver = checked.body.driver as string;
  try {
    getHardwareType(driver);
  } catch {
    throw noConductorFor(driver, group);
  }
  const chassis = (checked.body.chassis_uuid as string | null | undefined) || undefined;
  const parent = (checked.body.parent_node as string | null | undefined) || undefined;
  const given = Object.entries(checked.body)
    .filter(([field, value]) => value !== null && value !== undefined && field !== 'owner' && field !== 'uuid')
    .map(([field]) => field);
  const node = newNode(checked.body, uuid, group, version);
  const ports = rawPorts.map((rawPort, i) => {
    try {
      if (rawPort === null || typeof rawPort !== 'object' || Array.isArray(rawPort)) {
        throw new InvalidParameterValue(`A port must be an object, not ${JSON.stringify(rawPort)}`);
      }
      const data = structuredClone(rawPort) as Record<string, unknown>;
      if (data.node_uuid !== undefined && data.node_uuid !== null && data.node_uuid !== uuid) {
        throw new InvalidParameterValue(`node_uuid ${String(data.node_uuid)} is not the UUID of the node the port is listed under`);
      }
      if (data.portgroup_uuid !== undefined && data.portgroup_uuid !== null) {
        throw new InvalidParameterValue('Ports in portgroups are not imported: create the portgroup and the port through the API');
      }
      data.node_uuid = uuid;
      validatePort('port', data, version);
      checkNewPort(data, version);
      return newPort(data, uuid);
    } catch (err) {
      throw new PortError(i, messageOf(err));
    }
  });
  return {
    index,
    node,
    ports,
    uuidGiven: checked.body.uuid !== undefined && checked.body.uuid !== null,
    given,
    ...(chassis ? { chassis } : {}),
    ...(parent ? { parent } : {}),
  };
}

/** A port of a node is refused: the node is, with the port's position in its list. */
class PortError extends ClientSideError {
  constructor(
    readonly port: number,
    message: string,
  ) {
    super(`Port ${port}: ${message}`);
  }
}

/** Every node of the file checked; a node is either built or refused, never both. */
export function checkFileNodes(raw: readonly unknown[], version: ApiVersion): CheckedFile {
  const nodes: FileNode[] = [];
  const errors: NodeError[] = [];
  raw.forEach((entry, index) => {
    try {
      nodes.push(checkFileNode(entry, index, version));
    } catch (err) {
      errors.push({ index, ident: identOf(entry), message: messageOf(err) });
    }
  });
  errors.push(...duplicatesInFile(nodes));
  const refused = new Set(errors.map((e) => e.index));
  return { nodes: nodes.filter((n) => !refused.has(n.index)), errors: errors.sort((a, b) => a.index - b.index) };
}

/** The unique values a file node claims (guard keys) with the error each gives when taken. */
export function uniqueValues(entry: FileNode): { key: string; error: () => Error; port?: Port }[] {
  const { node } = entry;
  const out: { key: string; error: () => Error; port?: Port }[] = [
    { key: `uuid/${node.uuid}`, error: () => new NodeAlreadyExists(node.uuid) },
  ];
  if (node.name) out.push({ key: guard.nodeName(node.name), error: () => new DuplicateName(node.name ?? '') });
  const instance = node.instance_uuid;
  if (instance) out.push({ key: guard.nodeInstance(instance), error: () => new InstanceAssociated(instance, node.uuid) });
  for (const port of entry.ports) {
    out.push({ key: `port/uuid/${port.uuid}`, error: () => new PortAlreadyExists(port.uuid), port });
    if (port.address) out.push({ key: guard.portAddress(port.address), error: () => new MACAlreadyExists(port.address ?? ''), port });
    if (port.name) out.push({ key: guard.portName(port.name), error: () => new PortDuplicateName(port.name ?? ''), port });
  }
  return out;
}

/** Values two nodes of the file both claim: each later node is refused, naming the first. */
function duplicatesInFile(nodes: readonly FileNode[]): NodeError[] {
  const first = new Map<string, number>();
  const errors: NodeError[] = [];
  for (const entry of nodes) {
    for (const { key, error } of uniqueValues(entry)) {
      const earlier = first.get(key);
      if (earlier === undefined) {
        first.set(key, entry.index);
      } else if (earlier !== entry.index) {
        errors.push({
          index: entry.index,
          ident: entry.node.name ?? entry.node.uuid,
          message: `${error().message} (node ${earlier} of the file)`,
        });
        break;
      } else {
        errors.push({ index: entry.index, ident: entry.node.name ?? entry.node.uuid, message: `${error().message} (twice in this node)` });
        break;
      }
    }
  }
  return errors;
}
