import { type PlanPort, type PlanPortgroup, planTrait, planVifAttach, traitsForNode } from '../../../../functions/drivers/tbn/plan';
import { parseRules } from '../../../../functions/drivers/tbn/rules';

const port = (uuid: string, facts: Partial<PlanPort> = {}): PlanPort => ({
  kind: 'port',
  uuid,
  address: null,
  category: null,
  physical_network: null,
  vendor: null,
  available_for_dynamic_portgroup: true,
  ...facts,
});
const group = (uuid: string, facts: Partial<PlanPortgroup> = {}): PlanPortgroup => ({
  kind: 'portgroup',
  uuid,
  address: null,
  category: null,
  physical_network: null,
  vendor: null,
  ...facts,
});
const storage = { name: 'storage', tags: ['fast'] };
const trait = (actions: unknown[], name = 'CUSTOM_T', order?: number) => parseRules({ [name]: { actions, order } })[0]!;

describe('trait based networking planning', () => {
  it('groups available ports of one physical network, up to max_count, when the network matches', () => {
    const bond = trait([
      { action: 'group_and_attach_ports', filter: "port.vendor == 'purple' && network.name == 'storage'", min_count: 2, max_count: 2 },
    ]);
    const ports = [
      port('a', { vendor: 'purple', physical_network: 'fabric-a' }),
      port('b', { vendor: 'purple', physical_network: 'fabric-b' }),
      port('c', { vendor: 'purple', available_for_dynamic_portgroup: false, physical_network: 'fabric-a' }),
      port('d', { vendor: 'green', physical_network: 'fabric-a' }),
      port('e', { vendor: 'purple', physical_network: 'fabric-a' }),
      port('f', { vendor: 'purple', physical_network: 'fabric-a' }),
    ];
    expect(planTrait(bond, ports, [], storage)).toEqual([{ type: 'group_and_attach_ports', trait: 'CUSTOM_T', portUuids: ['a', 'e'] }]);
    expect(planTrait(bond, ports, [], { name: 'public', tags: [] })).toEqual([
      { type: 'no_match', trait: 'CUSTOM_T', reason: 'Enough ports matched to form a dynamic portgroup, but the network did not match.' },
    ]);
    expect(planTrait(bond, ports.slice(0, 4), [], storage)).toEqual([
      {
        type: 'no_match',
        trait: 'CUSTOM_T',
        reason: "Couldn't match enough ports to form a dynamic portgroup: minimum ports needed is 2, and 1 ports matched.",
      },
    ]);
  });

  it('attaches the first match without min_count, up to max_count with it, and lets later actions use what is left', () => {
    const ports = [port('a', { vendor: 'purple' }), port('b', { vendor: 'purple' }), port('c', { vendor: 'purple' })];
    expect(planTrait(trait([{ action: 'attach_port', filter: "port.vendor == 'purple'" }]), ports, [], storage)).toEqual([
      { type: 'attach_port', trait: 'CUSTOM_T', uuid: 'a' },
    ]);
    const two = trait([
      { action: 'attach_port', filter: "port.vendor == 'purple'", min_count: 1, max_count: 2 },
      { action: 'attach_port', filter: "port.vendor == 'purple'" },
      { action: 'attach_portgroup', filter: 'port.is_portgroup' },
      { action: 'bond_ports', filter: 'port.is_port' },
    ]);
    expect(planTrait(two, ports, [group('g')], storage).map((a) => ('uuid' in a ? a.uuid : a.type))).toEqual([
      'a',
      'b',
      'c',
      'g',
      'not_implemented',
    ]);
    const tooFew = trait([{ action: 'attach_port', filter: "port.vendor == 'purple'", min_count: 4 }]);
    expect(planTrait(tooFew, ports, [], storage)).toEqual([
      {
        type: 'no_match',
        trait: 'CUSTOM_T',
        reason: 'Not enough (port, network) pairs matched to meet minimum count threshold. Matched 3 but min_count is 4.',
      },
    ]);
  });

  it('takes the node’s traits from instance_info, tries them by order, and falls through no-matches', () => {
    const rules = parseRules({
      CUSTOM_LATE: { order: 5, actions: [{ action: 'attach_port', filter: 'port.is_port' }] },
      CUSTOM_EARLY_NONE: { order: 1, actions: [{ action: 'attach_port', filter: "port.vendor == 'none'" }] },
      CUSTOM_UNUSED: { order: 0, actions: [{ action: 'attach_port', filter: 'port.is_port' }] },
    });
    const traits = traitsForNode(rules, ['CUSTOM_LATE', 'CUSTOM_EARLY_NONE', 'HW_CPU_X86_AVX']);
    expect(traits.map((t) => t.name)).toEqual(['CUSTOM_LATE', 'CUSTOM_EARLY_NONE']);
    expect(traitsForNode(rules, undefined)).toEqual([]);
    expect(planVifAttach(traits, [port('a')], [], storage)).toEqual([{ type: 'attach_port', trait: 'CUSTOM_LATE', uuid: 'a' }]);
    expect(planVifAttach(traits, [], [], storage)).toEqual([
      { type: 'no_match', trait: 'plan_vif_attach', reason: 'Could not find an applicable port or portgroup in any applicable trait.' },
    ]);
  });
});
