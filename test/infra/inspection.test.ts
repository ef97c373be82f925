/**
 * In-band inspection in the CDK stack: the node inventory table (keyed by the node's UUID, no
 * index, kept like every table), which the API reads and deletes and the conductor writes, and the
 * `[inspector]` and `[redfish]inspection_hooks` settings reaching the conductor — with bad hooks refused at synth.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { IronlessStack } from '../../lib/ironless-stack';
import { tableActions } from './helpers';

const template = Template.fromStack(
  new IronlessStack(new App(), 'Inspection', {
    settings: {
      inspectWaitTimeoutSeconds: 600,
      inspectorAddPorts: 'all',
      inspectorHooks: '$default_hooks,memory',
      redfishInspectionHooks: '$default_inspection_hooks,cpus',
      inspectorRequireManagedBoot: false,
    },
  }),
);
const resources = (type: string, from: Template = template) =>
  from.findResources(type) as Record<string, { Properties: Record<string, unknown>; DeletionPolicy?: string }>;

/** The conductor function's environment variables in a template. */
const conductorVariables = (from: Template): Record<string, unknown> => {
  const conductor = Object.values(resources('AWS::Lambda::Function', from)).find((f) =>
    String(f.Properties.Description).startsWith('Ironless conductor'),
  );
  return (conductor?.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
};

const inventoryTableId = () =>
  Object.entries(resources('AWS::DynamoDB::GlobalTable')).find(([, t]) =>
    JSON.stringify(t.Properties.KeySchema).includes('"node_uuid"'),
  )?.[0] as string;

/** The actions the role of a function (found by its description) may take on the table. */
const inventoryActions = (description: RegExp): string[] => tableActions(template, description, inventoryTableId());

it('creates the node inventory table: keyed by the node UUID, no index, retained', () => {
  const table = resources('AWS::DynamoDB::GlobalTable')[inventoryTableId()];
  expect(table?.Properties).toMatchObject({
    KeySchema: [{ AttributeName: 'node_uuid', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'node_uuid', AttributeType: 'S' }],
    BillingMode: 'PAY_PER_REQUEST',
  });
  expect(table?.Properties.GlobalSecondaryIndexes).toBeUndefined();
  expect(table?.DeletionPolicy).toBe('Retain');
  template.hasOutput('NodeInventoryTable', { Value: { Ref: inventoryTableId() } });
});

it('lets the API read and delete inventories and the conductor write them, naming the table to both', () => {
  for (const fn of [/^Ironless api/, /^Ironless conductor/]) {
    expect(inventoryActions(fn)).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem']));
  }
  for (const description of ['^Ironless api', '^Ironless conductor']) {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp(description),
      Environment: { Variables: Match.objectLike({ NODE_INVENTORY_TABLE: { Ref: inventoryTableId() } }) },
    });
  }
});

it('gives the conductor the [inspector] settings, the redfish inspection hooks and the inspect wait timeout', () => {
  template.hasResourceProperties('AWS::Lambda::Function', {
    Description: Match.stringLikeRegexp('^Ironless conductor'),
    Environment: {
      Variables: Match.objectLike({
        INSPECT_WAIT_TIMEOUT: '600',
        INSPECTOR_HOOKS: '$default_hooks,memory',
        REDFISH_HOOKS: '$default_inspection_hooks,cpus',
        INSPECTOR_ADD_PORTS: 'all',
        INSPECTOR_REQUIRE_MANAGED_BOOT: 'false',
      }),
    },
  });
  // keep_ports "all" and power_off true are the conductor's own defaults: no variable carries them.
  const env = conductorVariables(template);
  expect(env).not.toHaveProperty('INSPECTOR_KEEP_PORTS');
  expect(env).not.toHaveProperty('INSPECTOR_POWER_OFF');
});

it('refuses hooks the conductor could not load, and unknown port policies', () => {
  expect(() => new IronlessStack(new App(), 'BadHooks', { settings: { inspectorHooks: 'ports,validate-interfaces' } })).toThrow(
    'Hook ports requires these missing hooks to be enabled before it: validate-interfaces',
  );
  expect(() => new IronlessStack(new App(), 'Unknown', { settings: { inspectorHooks: '$default_hooks,lldp' } })).toThrow(
    'The following hook(s) are missing or failed to load: lldp',
  );
  expect(() => new IronlessStack(new App(), 'Ports', { settings: { inspectorKeepPorts: 'some' as 'all' } })).toThrow(
    'inspectorKeepPorts "some" must be one of all, present, added',
  );
});

it("leaves Ironic's default hooks out of the conductor's environment (Lambda's 4 KB), for the function's own default", () => {
  const defaults = Template.fromStack(new IronlessStack(new App(), 'DefaultHooks', {}));
  const env = conductorVariables(defaults);
  expect(env).toHaveProperty('NODE_INVENTORY_TABLE');
  expect(env).not.toHaveProperty('INSPECTOR_HOOKS');
  expect(env).not.toHaveProperty('REDFISH_HOOKS');
});

it('refuses redfish inspection hooks the conductor could not load, naming the setting', () => {
  expect(() => new IronlessStack(new App(), 'RedfishOrder', { settings: { redfishInspectionHooks: 'ports,validate-interfaces' } })).toThrow(
    'redfishInspectionHooks "ports,validate-interfaces": Failed to inspect hardware. Reason: Some hooks failed to load due to dependency problems: ' +
      'Hook ports requires these missing hooks to be enabled before it: validate-interfaces',
  );
  // `$default_hooks` is the in-band list's variable: in the redfish list it names no hook.
  expect(() => new IronlessStack(new App(), 'RedfishUnknown', { settings: { redfishInspectionHooks: '$default_hooks' } })).toThrow(
    'redfishInspectionHooks "$default_hooks": Failed to inspect hardware. Reason: The following hook(s) are missing or failed to load: $default_hooks',
  );
});
