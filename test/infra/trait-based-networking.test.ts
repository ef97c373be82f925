/**
 * Trait based networking in the CDK stack: the rules (from Ironic's YAML file through CDK context,
 * or from settings) reach the conductor's environment as JSON, and invalid rules stop the synth.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { propsFromContext } from '../../lib/app-context';
import { IronlessStack } from '../../lib/ironless-stack';

const RULES_YAML = `CUSTOM_BOND_PURPLE_BY_2:
  actions:
    - action: group_and_attach_ports
      filter: port.vendor == 'purple'
      min_count: 2
      max_count: 2
`;
const dir = mkdtempSync(join(tmpdir(), 'tbn-'));
const rulesFile = join(dir, 'trait_based_networking.yaml');
writeFileSync(rulesFile, RULES_YAML);

type Fn = { Properties: { Description: string; Environment: { Variables: Record<string, unknown> } } };

it('reads the rules file named in context and gives the conductor the rules as JSON', () => {
  const app = new App({ context: { traitBasedNetworkingRules: rulesFile, traitBasedNetworkingRaiseWhenNoMatch: 'false' } });
  const props = propsFromContext(app.node);
  const rules = {
    CUSTOM_BOND_PURPLE_BY_2: {
      actions: [{ action: 'group_and_attach_ports', filter: "port.vendor == 'purple'", min_count: 2, max_count: 2 }],
    },
  };
  expect(props.settings?.traitBasedNetworking).toEqual({ rules, raiseWhenNoMatch: false });
  const template = Template.fromStack(new IronlessStack(app, 'Tbn', props));
  const functions = Object.values(
    template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('^Ironless ') } }),
  ) as Fn[];
  const conductor = functions.find((f) => f.Properties.Description.includes('conductor'));
  const env = conductor?.Properties.Environment.Variables ?? {};
  expect(JSON.parse(String(env.TRAIT_BASED_NETWORKING_RULES))).toEqual(rules);
  // enableDefaultTrait is at its default (true), so its variable is left out.
  expect([env.TRAIT_BASED_NETWORKING_RAISE_WHEN_NO_MATCH, env.TRAIT_BASED_NETWORKING_ENABLE_DEFAULT_TRAIT]).toEqual(['false', undefined]);
});

it('refuses rules too large for the conductor environment (Lambda allows 4 KB in all) before deploying', () => {
  const filter = `port.vendor == '${'v'.repeat(60)}'`;
  const rules = Object.fromEntries(
    Array.from({ length: 12 }, (_, i) => [`CUSTOM_T${i}`, { actions: [{ action: 'attach_port', filter }] }]),
  );
  expect(() => new IronlessStack(new App(), 'Big', { settings: { traitBasedNetworking: { rules } } })).toThrow(
    /settings\.traitBasedNetworking\.rules take \d+ bytes as JSON; at most 1024 fit in the conductor's environment/,
  );
});

it('leaves trait based networking off without rules, and refuses invalid rules or a missing file', () => {
  const template = Template.fromStack(new IronlessStack(new App(), 'NoTbn', {}));
  expect(JSON.stringify(template.findResources('AWS::Lambda::Function'))).not.toContain('TRAIT_BASED_NETWORKING_RULES');
  expect(
    () =>
      new IronlessStack(new App(), 'Bad', {
        settings: {
          traitBasedNetworking: { rules: { CUSTOM_X: { actions: [{ action: 'group_and_attach_ports', filter: 'port.is_port' }] } } },
        },
      }),
  ).toThrow("settings.traitBasedNetworking.rules are invalid:\n  'CUSTOM_X' has an invalid 'group_and_attach_ports'");
  expect(() => propsFromContext(new App({ context: { traitBasedNetworkingRules: join(dir, 'missing.yaml') } }).node)).toThrow(
    `Cannot read the trait based networking rules file ${join(dir, 'missing.yaml')}`,
  );
  const broken = join(dir, 'broken.yaml');
  writeFileSync(broken, 'CUSTOM_X:\n  actions: [\n');
  expect(() => propsFromContext(new App({ context: { traitBasedNetworkingRules: broken } }).node)).toThrow(`${broken} is not valid YAML`);
});
