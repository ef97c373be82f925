/**
 * What `ironless fleet import` decides against the tables before writing: nodes already there
 * identically are skipped (a re-run), other values are refused, unique values owned by others,
 * missing chassis and unserved drivers are refused, parent nodes are resolved.
 */
import { checkFileNodes } from '../../../bin/import/nodes-file';
import { type TableLookups, planImport } from '../../../bin/import/plan';
import { parseVersion } from '../../../functions/api/microversion';
import { selectRelease } from '../../../functions/common/releases';
import { guard } from '../../../functions/db/keys';
import type { Node } from '../../../functions/objects/node';
import type { Port } from '../../../functions/objects/port';

const VERSION = parseVersion(selectRelease('').apiMaxVersion)!;
const U = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** Tables in memory: stored nodes and ports, guards, chassis, conductors. */
class Tables implements TableLookups {
  readonly storedNodes = new Map<string, Node>();
  readonly storedPorts = new Map<string, Port>();
  readonly guards = new Map<string, string>();
  readonly chassisUuids = new Set<string>();
  conductors: { driver: string; group: string }[] | undefined = [{ driver: 'fake-hardware', group: '' }];

  store(body: Record<string, unknown>): Node {
    const [entry] = checkFileNodes([body], VERSION).nodes;
    const node = entry!.node;
    this.storedNodes.set(node.uuid, node);
    if (node.name) this.guards.set(guard.nodeName(node.name), node.uuid);
    for (const port of entry!.ports) {
      this.storedPorts.set(port.uuid, port);
      this.guards.set(guard.portAddress(port.address!), port.uuid);
    }
    return node;
  }

  nodes = async (uuids: readonly string[]) => uuids.flatMap((u) => (this.storedNodes.has(u) ? [this.storedNodes.get(u)!] : []));
  ports = async (uuids: readonly string[]) => uuids.flatMap((u) => (this.storedPorts.has(u) ? [this.storedPorts.get(u)!] : []));
  chassis = async (uuids: readonly string[]) => new Set(uuids.filter((u) => this.chassisUuids.has(u)));
  guardOwners = async (keys: readonly string[]) => new Map(keys.filter((k) => this.guards.has(k)).map((k) => [k, this.guards.get(k)!]));
  served = async () => this.conductors;
}

const plan = (tables: Tables, bodies: Record<string, unknown>[]) => {
  const checked = checkFileNodes(bodies, VERSION);
  expect(checked.errors).toEqual([]);
  return planImport(checked.nodes, tables);
};

describe('planImport', () => {
  it('writes new nodes with all their ports', async () => {
    const result = await plan(new Tables(), [
      { driver: 'fake-hardware', name: 'a', ports: [{ address: '52:54:00:00:00:01' }, { address: '52:54:00:00:00:02' }] },
      { driver: 'fake-hardware' },
    ]);
    expect(result.errors).toEqual([]);
    expect(result.writes.map((w) => [w.index, w.exists, w.ports.length])).toEqual([
      [0, false, 2],
      [1, false, 0],
    ]);
    expect(result.warnings).toEqual(['1 node(s) have neither a UUID nor a name: a second import of this file creates them again.']);
  });

  it('warns only about new nodes with neither a UUID nor a name, whatever their place in the file', async () => {
    const tables = new Tables();
    tables.store({ driver: 'fake-hardware', uuid: U(1) });
    const result = await plan(tables, [
      { driver: 'fake-hardware', uuid: U(1) },
      { driver: 'fake-hardware' },
      { driver: 'fake-hardware', uuid: U(2) },
      { driver: 'fake-hardware', name: 'named' },
      { driver: 'fake-hardware' },
      { driver: 'fake-hardware', uuid: U(3) },
      { driver: 'fake-hardware' },
    ]);
    expect(result.errors).toEqual([]);
    expect(result.skippedNodes).toBe(1);
    expect(result.writes.map((w) => w.index)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(result.warnings).toEqual(['3 node(s) have neither a UUID nor a name: a second import of this file creates them again.']);
  });

  it('skips nodes (by UUID, or by name when none is given) and ports that are there identically', async () => {
    const tables = new Tables();
    tables.store({ driver: 'fake-hardware', uuid: U(1), name: 'a', shard: 's', ports: [{ address: '52:54:00:00:00:01' }] });
    const byName = tables.store({ driver: 'fake-hardware', name: 'b', ports: [{ address: '52:54:00:00:00:02' }] });
    const result = await plan(tables, [
      {
        driver: 'fake-hardware',
        uuid: U(1),
        name: 'a',
        shard: 's',
        ports: [{ address: '52:54:00:00:00:01' }, { address: '52:54:00:00:00:03' }],
      },
      { driver: 'fake-hardware', name: 'b', ports: [{ address: '52:54:00:00:00:02' }] },
    ]);
    expect(result.errors).toEqual([]);
    expect(result.skippedNodes).toBe(2);
    expect(result.skippedPorts).toBe(2);
    // Node a gets the port it lacks, on the stored node; node b has everything.
    expect(result.writes).toHaveLength(1);
    expect(result.writes[0]!.exists).toBe(true);
    expect(result.writes[0]!.ports.map((p) => [p.address, p.node_uuid])).toEqual([['52:54:00:00:00:03', U(1)]]);
    expect(byName.uuid).not.toBe(U(1));
  });

  it('refuses a node in the table with other values, naming the fields that differ', async () => {
    const tables = new Tables();
    tables.store({ driver: 'fake-hardware', uuid: U(1), name: 'a', properties: { cpus: 8 } });
    tables.store({ driver: 'fake-hardware', name: 'b', shard: 'x' });
    const result = await plan(tables, [
      { driver: 'fake-hardware', uuid: U(1), name: 'a', properties: { cpus: 16 } },
      { driver: 'fake-hardware', name: 'b', shard: 'y' },
    ]);
    expect(result.writes).toEqual([]);
    expect(result.errors.map((e) => e.message)).toEqual([
      `A node with UUID ${U(1)} already exists. It differs from the file in: properties.`,
      'A node with name b already exists. It differs from the file in: shard.',
    ]);
  });

  it('refuses unique values other nodes and ports own, missing chassis and drivers no conductor serves', async () => {
    const tables = new Tables();
    tables.store({ driver: 'fake-hardware', uuid: U(1), name: 'taken', ports: [{ address: '52:54:00:00:00:01' }] });
    const result = await plan(tables, [
      { driver: 'fake-hardware', uuid: U(2), name: 'taken' },
      { driver: 'fake-hardware', uuid: U(3), ports: [{ address: '52:54:00:00:00:01' }] },
      { driver: 'fake-hardware', chassis_uuid: U(9) },
      { driver: 'fake-hardware', conductor_group: 'rack-z' },
      { driver: 'fake-hardware', uuid: U(4), parent_node: 'nobody' },
    ]);
    expect(result.writes).toEqual([]);
    expect(result.errors.map((e) => [e.index, e.message])).toEqual([
      [0, 'A node with name taken already exists.'],
      [1, 'A port with MAC address 52:54:00:00:00:01 already exists.'],
      [2, `Chassis ${U(9)} could not be found.`],
      [
        3,
        'No valid host was found. Reason: No conductor service registered which supports driver fake-hardware for conductor group "rack-z".',
      ],
      [4, "Unable to apply the requested parent_node 'nobody'. Requested value was invalid."],
    ]);
  });

  it('resolves parent nodes named in the file or the table, and warns when no conductor is registered', async () => {
    const tables = new Tables();
    tables.conductors = undefined;
    tables.store({ driver: 'fake-hardware', uuid: U(1), name: 'stored-parent' });
    const result = await plan(tables, [
      { driver: 'fake-hardware', uuid: U(2), name: 'file-parent' },
      { driver: 'fake-hardware', uuid: U(3), parent_node: 'file-parent' },
      { driver: 'fake-hardware', uuid: U(4), parent_node: 'stored-parent', conductor_group: 'anything' },
    ]);
    expect(result.errors).toEqual([]);
    expect(result.writes.map((w) => w.node.parent_node)).toEqual([null, U(2), U(1)]);
    expect(result.warnings[0]).toMatch(/^No conductor has registered/);
  });

  it('refuses a MAC address owned by a port of another node even when the node itself is there', async () => {
    const tables = new Tables();
    tables.store({ driver: 'fake-hardware', uuid: U(1), name: 'a' });
    tables.store({ driver: 'fake-hardware', uuid: U(2), name: 'b', ports: [{ address: '52:54:00:00:00:01' }] });
    const result = await plan(tables, [{ driver: 'fake-hardware', uuid: U(1), name: 'a', ports: [{ address: '52:54:00:00:00:01' }] }]);
    expect(result.errors.map((e) => e.message)).toEqual(['A port with MAC address 52:54:00:00:00:01 already exists.']);
    expect(result.writes).toEqual([]);
  });
});
