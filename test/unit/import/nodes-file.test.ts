/**
 * The nodes file of `ironless fleet import`: nodes built by the API's create code (state,
 * interfaces, conductor group), every refusal with its index and Ironic's message, and values
 * that must be unique checked across the file.
 */
import { checkFileNodes, parseNodesFile } from '../../../bin/import/nodes-file';
import { parseVersion } from '../../../functions/api/microversion';
import { selectRelease } from '../../../functions/common/releases';

const VERSION = parseVersion(selectRelease('').apiMaxVersion)!;
const UUID = '11111111-2222-4333-8444-555555555555';

describe('parseNodesFile', () => {
  it('reads a JSON list of nodes and the {"nodes": [...]} of openstack baremetal create', () => {
    expect(parseNodesFile('[{"driver":"fake-hardware"}]')).toEqual([{ driver: 'fake-hardware' }]);
    expect(parseNodesFile('{"nodes":[{"driver":"fake-hardware"}]}')).toEqual([{ driver: 'fake-hardware' }]);
  });

  it('refuses what it cannot import, saying why', () => {
    expect(() => parseNodesFile('[{')).toThrow(/not JSON/);
    expect(() => parseNodesFile('{"node": []}')).toThrow('The file must hold a JSON list of nodes, or an object {"nodes": [...]}');
    expect(() => parseNodesFile('{"nodes": [], "chassis": []}')).toThrow('the file also has: chassis');
  });
});

describe('checkFileNodes', () => {
  it('builds each node as POST /v1/nodes does: enroll, the hardware type’s interfaces, the group lower-cased', () => {
    const { nodes, errors } = checkFileNodes(
      [{ driver: 'fake-hardware', name: 'n-0', uuid: UUID, conductor_group: 'Rack-A', shard: 's1', properties: { cpus: '8' } }],
      VERSION,
    );
    expect(errors).toEqual([]);
    const [entry] = nodes;
    expect(entry!.index).toBe(0);
    expect(entry!.uuidGiven).toBe(true);
    expect(entry!.node.values()).toMatchObject({
      uuid: UUID,
      name: 'n-0',
      provision_state: 'enroll',
      conductor_group: 'rack-a',
      shard: 's1',
      power_interface: 'fake',
      deploy_interface: 'fake',
    });
    expect([...entry!.given].sort()).toEqual(['conductor_group', 'driver', 'name', 'properties', 'shard']);
  });

  it('gives a node without a UUID a new one, and builds its ports on it with MACs lower-cased', () => {
    const { nodes } = checkFileNodes(
      [{ driver: 'fake-hardware', ports: [{ address: '52:54:00:AA:BB:01', pxe_enabled: 'false' }] }],
      VERSION,
    );
    const [entry] = nodes;
    expect(entry!.uuidGiven).toBe(false);
    expect(entry!.node.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(entry!.ports).toHaveLength(1);
    expect(entry!.ports[0]!.values()).toMatchObject({ node_uuid: entry!.node.uuid, address: '52:54:00:aa:bb:01', pxe_enabled: false });
  });

  it('refuses every bad node with its index and the message the API would answer', () => {
    const { nodes, errors } = checkFileNodes(
      [
        { driver: 'fake-hardware', name: 'good' },
        { name: 'no-driver' },
        { driver: 'fake-hardware', name: 'bad name!' },
        { driver: 'no-such-driver', name: 'unknown-driver' },
        { driver: 'fake-hardware', name: 'bad-mac', ports: [{ address: '52:54:00:00:00:01' }, { address: 'zz' }] },
        { driver: 'fake-hardware', name: 'in-group', ports: [{ address: '52:54:00:00:00:02', portgroup_uuid: UUID }] },
        { driver: 'fake-hardware', properties: { cpus: -1 }, uuid: UUID },
        'not a node',
        { driver: 'fake-hardware', uuid: 'not-a-uuid' },
        { driver: 'fake-hardware', ports: { address: '52:54:00:00:00:03' } },
      ],
      VERSION,
    );
    expect(nodes.map((n) => n.index)).toEqual([0]);
    expect(errors.map((e) => [e.index, e.ident])).toEqual([
      [1, 'no-driver'],
      [2, 'bad name!'],
      [3, 'unknown-driver'],
      [4, 'bad-mac'],
      [5, 'in-group'],
      [6, UUID],
      [7, '-'],
      [8, 'not-a-uuid'],
      [9, '-'],
    ]);
    const message = (i: number) => errors.find((e) => e.index === i)!.message;
    expect(message(1)).toMatch(/'driver' is a required property/);
    expect(message(2)).toBe("Cannot create node with invalid name 'bad name!'");
    expect(message(3)).toBe(
      'No valid host was found. Reason: No conductor service registered which supports driver no-such-driver for conductor group "".',
    );
    expect(message(4)).toBe('Port 1: Expected valid MAC address for address: zz');
    expect(message(5)).toMatch(/^Port 0: Ports in portgroups are not imported/);
    expect(message(6)).toBe(`The following properties for node ${UUID} should be non-negative integers, but provided values are: cpus=-1`);
    expect(message(8)).toBe('Expected UUID for uuid: not-a-uuid');
    expect(message(9)).toMatch(/"ports" must be a list/);
  });

  it('refuses a later node claiming a UUID, name, instance or MAC an earlier node of the file has', () => {
    const instance = '99999999-2222-4333-8444-555555555555';
    const { nodes, errors } = checkFileNodes(
      [
        { driver: 'fake-hardware', name: 'a', uuid: UUID, instance_uuid: instance, ports: [{ address: '52:54:00:00:00:01' }] },
        { driver: 'fake-hardware', name: 'a' },
        { driver: 'fake-hardware', uuid: UUID },
        { driver: 'fake-hardware', ports: [{ address: '52:54:00:00:00:01'.toUpperCase() }] },
        { driver: 'fake-hardware', instance_uuid: instance },
        { driver: 'fake-hardware', ports: [{ address: '52:54:00:00:00:09' }, { address: '52:54:00:00:00:09' }] },
        { driver: 'fake-hardware', name: 'b' },
      ],
      VERSION,
    );
    expect(nodes.map((n) => n.index)).toEqual([0, 6]);
    expect(errors.map((e) => e.message)).toEqual([
      'A node with name a already exists. (node 0 of the file)',
      `A node with UUID ${UUID} already exists. (node 0 of the file)`,
      'A port with MAC address 52:54:00:00:00:01 already exists. (node 0 of the file)',
      expect.stringMatching(new RegExp(`^Instance ${instance} is already associated with a node.*\\(node 0 of the file\\)$`)),
      'A port with MAC address 52:54:00:00:00:09 already exists. (twice in this node)',
    ]);
  });
});
