/**
 * The stores of the other objects on DynamoDB Local: unique values kept unique in the same
 * transaction as the write, foreign keys checked, lookups by unique values, lists by index.
 */
import { randomUUID } from 'node:crypto';
import {
  AllocationDuplicateName,
  ConcurrentUpdate,
  ConductorAlreadyRegistered,
  ConductorNotFound,
  DeployTemplateDuplicateName,
  MACAlreadyExists,
  NodeLocked,
  NodeNotFound,
  PortDuplicateName,
  PortNotFound,
  PortgroupDuplicateName,
  PortgroupMACAlreadyExists,
  PortgroupNotEmpty,
  PortgroupNotFound,
} from '../../../functions/common/errors';
import { type Stores, createStores } from '../../../functions/db/stores';
import { Allocation } from '../../../functions/objects/allocation';
import { DeployTemplate } from '../../../functions/objects/deploy-template';
import { NodeHistory } from '../../../functions/objects/node-history';
import { Port } from '../../../functions/objects/port';
import { Portgroup } from '../../../functions/objects/portgroup';
import { makeNode } from '../../unit/helpers/builders';
import { type TestDynamo, startDynamo } from '../helpers/dynamo';

let db: TestDynamo;
let stores: Stores;

beforeAll(async () => {
  db = await startDynamo();
  stores = createStores(db.context());
}, 60_000);
afterAll(async () => db?.stop());

const node = async () => stores.nodes.create(makeNode());

describe('ports', () => {
  it('belong to an existing node, keep MAC addresses and names unique, and are found by address', async () => {
    const n = await node();
    const missing = randomUUID();
    await expect(stores.ports.create(new Port({ uuid: randomUUID(), node_uuid: missing, address: '52:54:00:00:00:01' }))).rejects.toThrow(
      new NodeNotFound(missing),
    );
    const port = await stores.ports.create(new Port({ uuid: randomUUID(), node_uuid: n.uuid, address: '52:54:00:00:00:01', name: 'eth0' }));
    await expect(stores.ports.create(new Port({ uuid: randomUUID(), node_uuid: n.uuid, address: '52:54:00:00:00:01' }))).rejects.toThrow(
      new MACAlreadyExists('52:54:00:00:00:01'),
    );
    // MAC addresses compare case-insensitively.
    await expect(
      stores.ports.create(new Port({ uuid: randomUUID(), node_uuid: n.uuid, address: '52:54:00:00:00:01'.toUpperCase() })),
    ).rejects.toThrow(MACAlreadyExists);
    await expect(
      stores.ports.create(new Port({ uuid: randomUUID(), node_uuid: n.uuid, address: '52:54:00:00:00:02', name: 'eth0' })),
    ).rejects.toThrow(PortDuplicateName);
    expect((await stores.ports.getByAddress('52:54:00:00:00:01')).uuid).toBe(port.uuid);
    expect((await stores.ports.getByName('eth0')).uuid).toBe(port.uuid);

    const copy = await stores.ports.get(port.uuid);
    copy.address = '52:54:00:00:00:03';
    await stores.ports.save(copy);
    await expect(stores.ports.getByAddress('52:54:00:00:00:01')).rejects.toThrow(new PortNotFound('52:54:00:00:00:01'));
    await stores.ports.create(new Port({ uuid: randomUUID(), node_uuid: n.uuid, address: '52:54:00:00:00:01' }));
  });

  it('are listed by node, by portgroup and by address, in creation order', async () => {
    const [a, b] = [await node(), await node()];
    const pg = await stores.portgroups.create(new Portgroup({ uuid: randomUUID(), node_uuid: a.uuid, name: 'bond-list' }));
    const made: Port[] = [];
    for (let i = 0; i < 5; i++) {
      made.push(
        await stores.ports.create(
          new Port({
            uuid: randomUUID(),
            node_uuid: i < 3 ? a.uuid : b.uuid,
            address: `52:54:00:00:01:0${i}`,
            portgroup_uuid: i < 2 ? pg.uuid : null,
          }),
        ),
      );
    }
    const uuids = (ps: Port[]) => ps.map((p) => p.uuid);
    expect(uuids((await stores.ports.list({ nodeUuid: a.uuid }, { limit: 10 })).items)).toEqual(uuids(made.slice(0, 3)));
    expect(uuids((await stores.ports.list({ portgroupUuid: pg.uuid }, { limit: 10 })).items)).toEqual(uuids(made.slice(0, 2)));
    expect(uuids((await stores.ports.list({ address: '52:54:00:00:01:04' }, { limit: 10 })).items)).toEqual([made[4]!.uuid]);
    const first = await stores.ports.list({ nodeUuid: a.uuid }, { limit: 2 });
    expect(first.more).toBe(true);
    const second = await stores.ports.list({ nodeUuid: a.uuid }, { limit: 2, marker: first.items[1]!.uuid });
    expect(uuids(second.items)).toEqual([made[2]!.uuid]);
    expect(second.more).toBe(false);

    await expect(stores.portgroups.destroy(await stores.portgroups.get(pg.uuid))).rejects.toThrow(PortgroupNotEmpty);
    for (const p of made.slice(0, 2)) {
      const copy = await stores.ports.get(p.uuid);
      copy.portgroup_uuid = null;
      await stores.ports.save(copy);
    }
    await stores.portgroups.destroy(await stores.portgroups.get(pg.uuid));
    const orphan = await stores.ports.get(made[0]!.uuid);
    orphan.portgroup_uuid = pg.uuid;
    await expect(stores.ports.save(orphan)).rejects.toThrow(new PortgroupNotFound(pg.uuid));
  });
});

describe('portgroups', () => {
  it('keep names and addresses unique and are found by either', async () => {
    const n = await node();
    const pg = await stores.portgroups.create(
      new Portgroup({ uuid: randomUUID(), node_uuid: n.uuid, name: 'bond0', address: '52:54:00:aa:00:01' }),
    );
    await expect(stores.portgroups.create(new Portgroup({ uuid: randomUUID(), node_uuid: n.uuid, name: 'bond0' }))).rejects.toThrow(
      PortgroupDuplicateName,
    );
    await expect(
      stores.portgroups.create(new Portgroup({ uuid: randomUUID(), node_uuid: n.uuid, address: '52:54:00:aa:00:01' })),
    ).rejects.toThrow(PortgroupMACAlreadyExists);
    expect((await stores.portgroups.getByIdent('bond0')).uuid).toBe(pg.uuid);
    expect((await stores.portgroups.getByAddress('52:54:00:AA:00:01')).uuid).toBe(pg.uuid);
    expect((await stores.portgroups.list({ nodeUuid: n.uuid }, { limit: 5 })).items.map((p) => p.uuid)).toEqual([pg.uuid]);
  });
});

describe('deploy templates', () => {
  it('keep names unique and are found by a node’s traits', async () => {
    const steps = [{ interface: 'bios', step: 'apply_configuration', args: {}, priority: 150 }];
    const raid = await stores.deployTemplates.create(new DeployTemplate({ uuid: randomUUID(), name: 'CUSTOM_RAID1', steps }));
    const bios = await stores.deployTemplates.create(new DeployTemplate({ uuid: randomUUID(), name: 'CUSTOM_BIOS', steps }));
    await expect(stores.deployTemplates.create(new DeployTemplate({ uuid: randomUUID(), name: 'CUSTOM_RAID1', steps }))).rejects.toThrow(
      new DeployTemplateDuplicateName('CUSTOM_RAID1'),
    );
    const found = await stores.deployTemplates.getByNames(['CUSTOM_BIOS', 'CUSTOM_NONE', 'CUSTOM_RAID1']);
    expect(found.map((t) => t.uuid)).toEqual([bios.uuid, raid.uuid]);
    expect(found[0]!.steps).toEqual(steps);
    expect((await stores.deployTemplates.getByIdent('CUSTOM_RAID1')).uuid).toBe(raid.uuid);
  });
});

describe('allocations', () => {
  it('keep names unique, need their node, and are listed by state and node', async () => {
    const n = await node();
    const a = await stores.allocations.create(
      new Allocation({ uuid: randomUUID(), name: 'alloc-1', state: 'allocating', resource_class: 'gold' }),
    );
    await expect(stores.allocations.create(new Allocation({ uuid: randomUUID(), name: 'alloc-1', state: 'allocating' }))).rejects.toThrow(
      AllocationDuplicateName,
    );
    expect((await stores.allocations.list({ state: 'allocating' }, { limit: 10 })).items.map((x) => x.uuid)).toContain(a.uuid);
    const copy = await stores.allocations.getByIdent('alloc-1');
    copy.node_uuid = randomUUID();
    await expect(stores.allocations.save(copy)).rejects.toThrow(NodeNotFound);
    const fresh = await stores.allocations.get(a.uuid);
    fresh.node_uuid = n.uuid;
    fresh.state = 'active';
    await stores.allocations.save(fresh);
    expect((await stores.allocations.list({ nodeUuid: n.uuid }, { limit: 10 })).items.map((x) => x.uuid)).toEqual([a.uuid]);
    expect((await stores.allocations.list({ state: 'allocating' }, { limit: 10 })).items.map((x) => x.uuid)).not.toContain(a.uuid);
    expect((await stores.allocations.list({ state: 'active', resourceClass: 'silver' }, { limit: 10 })).items).toEqual([]);
  });
});

describe('conductors', () => {
  it('register once while online, heartbeat, unregister, and may then register again', async () => {
    const registered = await stores.conductors.register({ hostname: 'conductor:7', conductorGroup: 'Rack1', drivers: null });
    expect(registered).toMatchObject({ hostname: 'conductor:7', conductor_group: 'rack1', online: true });
    await expect(stores.conductors.register({ hostname: 'conductor:7' })).rejects.toThrow(new ConductorAlreadyRegistered('conductor:7'));
    await stores.conductors.touch('conductor:7');
    expect((await stores.conductors.get('conductor:7')).updated_at).not.toBeNull();
    await stores.conductors.unregister('conductor:7');
    expect((await stores.conductors.list({ online: true }, { limit: 10 })).items.map((c) => c.hostname)).not.toContain('conductor:7');
    expect((await stores.conductors.register({ hostname: 'conductor:7' })).online).toBe(true);
    await expect(stores.conductors.touch('conductor:8')).rejects.toThrow(new ConductorNotFound('conductor:8'));
  });
});

describe('node history', () => {
  it("lists a node's events oldest first and prunes the oldest", async () => {
    const n = await node();
    const events: NodeHistory[] = [];
    for (let i = 0; i < 4; i++) {
      events.push(
        await stores.nodeHistory.create(new NodeHistory({ uuid: randomUUID(), node_uuid: n.uuid, event: `e${i}`, severity: 'ERROR' })),
      );
    }
    const listed = await stores.nodeHistory.listByNode(n.uuid, { limit: 10 });
    expect(listed.items.map((e) => e.event)).toEqual(['e0', 'e1', 'e2', 'e3']);
    expect(await stores.nodeHistory.prune(n.uuid, 2)).toBe(2);
    expect((await stores.nodeHistory.listByNode(n.uuid, { limit: 10 })).items.map((e) => e.event)).toEqual(['e2', 'e3']);
  });

  it('saves a node with an event in one transaction: both, or neither when the node changed meanwhile', async () => {
    const n = await node();
    const stale = await stores.nodes.get(n.uuid);
    const fresh = await stores.nodes.get(n.uuid);
    fresh.last_error = 'boom';
    const event = new NodeHistory({ uuid: randomUUID(), node_uuid: n.uuid, event: 'boom', severity: 'ERROR' });
    const saved = await stores.nodes.save(fresh, { event });
    const [listed] = (await stores.nodeHistory.listByNode(n.uuid, { limit: 10 })).items;
    expect(listed?.toData()).toMatchObject({ uuid: event.uuid, event: 'boom', created_at: saved.updated_at });

    stale.last_error = 'too late';
    const lost = new NodeHistory({ uuid: randomUUID(), node_uuid: n.uuid, event: 'too late', severity: 'ERROR' });
    await expect(stores.nodes.save(stale, { event: lost })).rejects.toThrow(ConcurrentUpdate);
    expect((await stores.nodeHistory.listByNode(n.uuid, { limit: 10 })).items.map((e) => e.event)).toEqual(['boom']);
    expect((await stores.nodes.get(n.uuid)).last_error).toBe('boom');
  });

  it('lists a record by when it happened, not when it was written', async () => {
    const n = await node();
    const at = Date.now() - 60_000;
    const record = (event: string) => new NodeHistory({ uuid: randomUUID(), node_uuid: n.uuid, event, severity: 'ERROR' });
    await stores.nodeHistory.create(record('later'), at + 5);
    const late = await stores.nodeHistory.create(record('earlier, written late'), at);
    expect(late.created_at).toBe(new Date(at).toISOString());
    expect((await stores.nodeHistory.listByNode(n.uuid, { limit: 10 })).items.map((e) => e.event)).toEqual([
      'earlier, written late',
      'later',
    ]);
  });

  it("finds the oldest records of each given node beyond a maximum, reading only those nodes' records, and deletes them", async () => {
    const [a, b] = [await node(), await node()];
    const record = (owner: string, i: number) =>
      stores.nodeHistory.create(new NodeHistory({ uuid: randomUUID(), node_uuid: owner, event: `${owner}-${i}`, severity: 'INFO' }));
    const made: NodeHistory[] = [];
    for (let i = 0; i < 4; i++) made.push(await record(a.uuid, i));
    for (let i = 0; i < 2; i++) made.push(await record(b.uuid, i));
    const candidates = await stores.nodeHistory.purgeCandidates([a.uuid, b.uuid], 2);
    expect(candidates.get(a.uuid)).toEqual([made[0]!.uuid, made[1]!.uuid]);
    expect(candidates.has(b.uuid)).toBe(false);
    // Only records created before `before` count.
    expect((await stores.nodeHistory.purgeCandidates([a.uuid], 2, '2000-01-01T00:00:00.000Z')).has(a.uuid)).toBe(false);
    expect((await stores.nodeHistory.purgeCandidates([b.uuid], 2)).has(a.uuid)).toBe(false);
    expect((await stores.nodeHistory.purgeCandidates([a.uuid], 2, '2100-01-01T00:00:00.000Z')).get(a.uuid)).toEqual([
      made[0]!.uuid,
      made[1]!.uuid,
    ]);
    await stores.nodeHistory.deleteMany(candidates.get(a.uuid)!);
    expect((await stores.nodeHistory.listByNode(a.uuid, { limit: 10 })).items.map((e) => e.event)).toEqual([`${a.uuid}-2`, `${a.uuid}-3`]);
  });
});

describe('destroying a node', () => {
  it('takes its ports, portgroups, allocations and history with it, and frees their unique values', async () => {
    const n = await node();
    const pg = await stores.portgroups.create(
      new Portgroup({ uuid: randomUUID(), node_uuid: n.uuid, name: 'bond-gone', address: '52:54:00:dd:00:01' }),
    );
    const port = await stores.ports.create(
      new Port({ uuid: randomUUID(), node_uuid: n.uuid, address: '52:54:00:dd:00:02', name: 'eth-gone', portgroup_uuid: pg.uuid }),
    );
    const allocation = await stores.allocations.create(
      new Allocation({ uuid: randomUUID(), name: 'alloc-gone', node_uuid: n.uuid, state: 'active' }),
    );
    await stores.nodeHistory.create(new NodeHistory({ uuid: randomUUID(), node_uuid: n.uuid, event: 'e' }));
    const other = await node();

    await stores.nodes.destroy(await stores.nodes.get(n.uuid));

    await expect(stores.nodes.get(n.uuid)).rejects.toThrow(NodeNotFound);
    await expect(stores.ports.get(port.uuid)).rejects.toThrow(PortNotFound);
    await expect(stores.portgroups.get(pg.uuid)).rejects.toThrow(PortgroupNotFound);
    await expect(stores.allocations.get(allocation.uuid)).rejects.toThrow('could not be found');
    expect((await stores.nodeHistory.listByNode(n.uuid, { limit: 10 })).items).toEqual([]);
    // Their MAC addresses and names can be used again.
    await stores.ports.create(new Port({ uuid: randomUUID(), node_uuid: other.uuid, address: '52:54:00:dd:00:02', name: 'eth-gone' }));
    await stores.portgroups.create(
      new Portgroup({ uuid: randomUUID(), node_uuid: other.uuid, name: 'bond-gone', address: '52:54:00:dd:00:01' }),
    );
    await stores.allocations.create(new Allocation({ uuid: randomUUID(), name: 'alloc-gone' }));
  });

  it('refuses, taking nothing, while another holds its lock', async () => {
    const n = await node();
    const port = await stores.ports.create(new Port({ uuid: randomUUID(), node_uuid: n.uuid, address: '52:54:00:dd:01:01' }));
    const copy = await stores.nodes.get(n.uuid);
    await stores.nodes.reserve(n.uuid, { host: 'conductor:9', token: 'busy', ttlSeconds: 60 });
    await expect(stores.nodes.destroy(copy)).rejects.toThrow(NodeLocked);
    expect((await stores.ports.get(port.uuid)).node_uuid).toBe(n.uuid);
  });
});
