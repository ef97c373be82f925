/**
 * Which source answers a node list filter (never a walk of every node when an index or a guard
 * can answer), and the semantics of the filters left to check on each node.
 */
import { matches, planNodeQuery, type NodeFilter } from '../../../functions/db/node-filters';
import { NODE_CODEC } from '../../../functions/db/nodes';
import { makeNode } from '../helpers/builders';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const indexesOf = (filter: NodeFilter) => {
  const plan = planNodeQuery(filter, NOW);
  return 'indexes' in plan.from ? plan.from.indexes.map((s) => `${s.index}=${s.value}`) : [];
};

describe('planNodeQuery', () => {
  it.each<[string, NodeFilter, string[]]>([
    ['no filter: all nodes in creation order', {}, ['byId=node']],
    ['provision state', { provisionState: 'active' }, ['byProvisionState=active']],
    [
      'several provision states, merged',
      { provisionStates: ['deploying', 'cleaning'] },
      ['byProvisionState=deploying', 'byProvisionState=cleaning'],
    ],
    ['shards', { shards: ['a', 'b'] }, ['byShard=s#a', 'byShard=s#b']],
    ['unsharded', { sharded: false }, ['byShard=n#']],
    ['conductor group, case-insensitively', { conductorGroup: 'Rack1' }, ['byConductorGroup=g#rack1']],
    ['owner', { owner: 'p1' }, ['byOwner=v#p1']],
    ['lessee', { lessee: 'p2' }, ['byLessee=v#p2']],
    ['project: owner or lessee', { project: 'p3' }, ['byOwner=v#p3', 'byLessee=v#p3']],
    ['associated', { associated: true }, ['byAssociated=a']],
    ['in maintenance', { maintenance: true }, ['byMaintenance=m']],
    ['driver', { driver: 'redfish' }, ['byDriver=redfish']],
    ['chassis', { chassisUuid: 'c1' }, ['byChassis=v#c1']],
    ['the most selective of several', { provisionState: 'active', owner: 'p1', driver: 'redfish' }, ['byOwner=v#p1']],
  ])('%s', (_label, filter, expected) => {
    expect(indexesOf(filter)).toEqual(expected);
  });

  it('answers an instance filter from the instance guard, not an index', () => {
    const plan = planNodeQuery({ instanceUuid: 'i-1' }, NOW);
    expect(plan.instanceGuard).toBe('node/instance/i-1');
    expect(plan.matches).toBeUndefined();
  });

  it('leaves nothing to check when the index answers everything, and the rest otherwise', () => {
    expect(planNodeQuery({ provisionState: 'active' }, NOW).matches).toBeUndefined();
    const plan = planNodeQuery({ provisionState: 'active', maintenance: false }, NOW);
    expect(plan.matches?.(makeNode({ provision_state: 'active', maintenance: true }))).toBe(false);
    expect(plan.matches?.(makeNode({ provision_state: 'active', maintenance: false }))).toBe(true);
  });
});

describe('matches', () => {
  it("follows Ironic's filters", () => {
    const node = makeNode({
      owner: 'o',
      lessee: 'l',
      reservation: 'conductor:3',
      provision_updated_at: new Date(NOW - 600_000).toISOString(),
      description: 'rack 7 node',
    });
    expect(matches(node, { project: 'l' }, NOW)).toBe(true);
    expect(matches(node, { project: 'x' }, NOW)).toBe(false);
    expect(matches(node, { reserved: true, reservedByAnyOf: ['conductor:3'] }, NOW)).toBe(true);
    expect(matches(node, { provisionedBefore: 300 }, NOW)).toBe(true);
    expect(matches(node, { provisionedBefore: 900 }, NOW)).toBe(false);
    expect(matches(node, { descriptionContains: 'rack 7' }, NOW)).toBe(true);
    expect(matches(node, { associated: true }, NOW)).toBe(false);
  });
});

describe('NODE_CODEC', () => {
  it('derives every index key, leaving sparse ones out when the node has no value', () => {
    const plain = NODE_CODEC.derive(makeNode({ driver: 'redfish', provision_state: 'enroll' }).values());
    expect(plain).toMatchObject({ _all: 'node', _shard: 'n#', _group: 'g#', _pstate: 'enroll', _driver: 'redfish' });
    for (const sparse of ['_owner', '_lessee', '_maint', '_assoc', '_chassis']) expect(plain[sparse]).toBeUndefined();
    const full = NODE_CODEC.derive(
      makeNode({
        owner: 'o',
        lessee: 'l',
        maintenance: true,
        instance_uuid: 'i',
        chassis_uuid: 'c',
        shard: 's',
        conductor_group: 'G',
      }).values(),
    );
    expect(full).toMatchObject({ _owner: 'v#o', _lessee: 'v#l', _maint: 'm', _assoc: 'a', _chassis: 'v#c', _shard: 's#s', _group: 'g#g' });
  });

  it('guards the name and the instance', () => {
    expect(NODE_CODEC.guards(makeNode({ name: 'n1', instance_uuid: 'i1' }).values())).toEqual(['node/name/n1', 'node/instance/i1']);
    expect(NODE_CODEC.guards(makeNode().values())).toEqual([]);
  });
});
