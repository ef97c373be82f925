import { ConfigError } from '../../../../functions/common/config';
import { loadTbnConfig, parseRules } from '../../../../functions/drivers/tbn/rules';

// Ironic's etc/ironic/trait_based_networks.yaml.sample, as the JSON mapping Ironless reads.
const SAMPLE = {
  CUSTOM_TRAIT_NAME: { order: 1, actions: [{ action: 'group_and_attach_ports', filter: "port.vendor == 'vendor_string'", min_count: 2 }] },
  CUSTOM_DIRECT_ATTACH_A_PURPLE_TO_STORAGE: {
    actions: [{ action: 'attach_port', filter: "port.vendor == 'purple' && network.name == 'storage'" }],
  },
  CUSTOM_BOND_GREEN_STORAGE_TO_STORAGE_BY_2: {
    actions: [
      {
        action: 'group_and_attach_ports',
        filter: "port.vendor == 'green' && port.category == 'storage' && ( network.name =~ 'storage' || network.tags =~ 'storage' )",
        max_count: 2,
        min_count: 2,
      },
    ],
  },
};

describe('trait based networking rules', () => {
  it('reads Ironic’s sample rules: names, order (default 1), actions and counts', () => {
    const traits = parseRules(SAMPLE);
    expect(traits.map((t) => [t.name, t.order, t.actions.length])).toEqual([
      ['CUSTOM_TRAIT_NAME', 1, 1],
      ['CUSTOM_DIRECT_ATTACH_A_PURPLE_TO_STORAGE', 1, 1],
      ['CUSTOM_BOND_GREEN_STORAGE_TO_STORAGE_BY_2', 1, 1],
    ]);
    const bond = traits[2]?.actions[0];
    expect([bond?.action, bond?.minCount, bond?.maxCount]).toEqual(['group_and_attach_ports', 2, 2]);
    expect(traits[1]?.actions[0]?.minCount).toBeNull();
  });

  it('lists every problem at once, as Ironic’s validation does', () => {
    const rules = {
      CUSTOM_NO_ACTIONS: { order: 2 },
      CUSTOM_NOT_A_LIST: { actions: 'attach_port' },
      CUSTOM_BAD: {
        actions: [
          { action: 'teleport', filter: 'port.is_port' },
          { filter: 'port.is_port', colour: 'red' },
          { action: 'attach_port', filter: "port.vendor = 'x'" },
          { action: 'group_and_attach_ports', filter: 'port.is_port' },
          { action: 'group_and_attach_ports', filter: 'port.is_port', min_count: 3, max_count: 2 },
        ],
      },
    };
    let message = '';
    try {
      parseRules(rules, 'rules');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    expect(message.split('\n').map((l) => l.trim())).toEqual([
      'rules are invalid:',
      "'CUSTOM_NO_ACTIONS' trait does not include an 'actions' key",
      "'CUSTOM_NOT_A_LIST.actions' does not consist of a list of actions",
      "'CUSTOM_BAD' trait action has unrecognized action 'teleport' (known: attach_port, attach_portgroup, bond_ports, group_and_attach_ports)",
      "'CUSTOM_BAD' trait is missing 'action' key",
      "'CUSTOM_BAD' trait action has unrecognized key 'colour'",
      "'CUSTOM_BAD' trait action has malformed filter expression: 'port.vendor = 'x'' (unexpected text at character 13: \"= 'x'\")",
      "'CUSTOM_BAD' has an invalid 'group_and_attach_ports': it must have a min_count of 2 or greater. Got 'null'.",
      "'CUSTOM_BAD' has an invalid 'group_and_attach_ports': its max_count ('2') must be greater than or equal to its min_count ('3').",
    ]);
  });

  it('is off without rules, and reads rules and both switches from the environment', () => {
    expect(loadTbnConfig({})).toBeUndefined();
    expect(loadTbnConfig({ TRAIT_BASED_NETWORKING_RULES: '  ' })).toBeUndefined();
    const on = loadTbnConfig({ TRAIT_BASED_NETWORKING_RULES: JSON.stringify(SAMPLE) });
    expect([on?.traits.length, on?.raiseWhenNoMatch, on?.enableDefaultTrait]).toEqual([3, true, true]);
    const quiet = loadTbnConfig({
      TRAIT_BASED_NETWORKING_RULES: '{}',
      TRAIT_BASED_NETWORKING_RAISE_WHEN_NO_MATCH: 'false',
      TRAIT_BASED_NETWORKING_ENABLE_DEFAULT_TRAIT: 'no',
    });
    expect([quiet?.raiseWhenNoMatch, quiet?.enableDefaultTrait]).toEqual([false, false]);
    expect(() => loadTbnConfig({ TRAIT_BASED_NETWORKING_RULES: 'CUSTOM_X: {}' })).toThrow(
      'Environment variable TRAIT_BASED_NETWORKING_RULES must be a JSON object of trait rules',
    );
    expect(() => loadTbnConfig({ TRAIT_BASED_NETWORKING_RULES: '[]' })).toThrow('must be a mapping of trait names to their actions');
  });
});
