/**
 * Firmware components in the CDK stack: their table, keyed by the node's UUID and the component's
 * name, no index, kept like every table, which the API reads and the conductor writes, named to both;
 * and the `[redfish]firmware_update_*`, `boot_mode_config_timeout` and `post_boot_retry_*` settings,
 * carried to the conductor when not at their default.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { IronlessStack } from '../../lib/ironless-stack';
import { tableActions } from './helpers';

const template = Template.fromStack(
  new IronlessStack(new App(), 'Firmware', {
    settings: {
      firmwareUpdateOverallTimeoutSeconds: 3600,
      firmwareUpdateRequiredSuccesses: 0,
      redfishBootModeConfigTimeoutSeconds: 60,
      redfishPostBootRetryAttempts: 3,
    },
  }),
);
const resources = (type: string) =>
  template.findResources(type) as Record<string, { Properties: Record<string, unknown>; DeletionPolicy?: string }>;

const firmwareTableId = () =>
  Object.entries(resources('AWS::DynamoDB::GlobalTable')).find(([, t]) =>
    JSON.stringify(t.Properties.KeySchema).includes('"component"'),
  )?.[0] as string;

/** The conductor function's environment variables. */
const conductorVariables = (): Record<string, unknown> => {
  const conductor = Object.values(resources('AWS::Lambda::Function')).find((f) =>
    String(f.Properties.Description).startsWith('Ironless conductor'),
  );
  return (conductor?.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
};

/** The actions the role of a function (found by its description) may take on the table. */
const firmwareActions = (description: RegExp): string[] => tableActions(template, description, firmwareTableId());

it('creates the firmware components table: node UUID and component name as keys, no index, retained', () => {
  const table = resources('AWS::DynamoDB::GlobalTable')[firmwareTableId()];
  expect(table?.Properties).toMatchObject({
    KeySchema: [
      { AttributeName: 'node_uuid', KeyType: 'HASH' },
      { AttributeName: 'component', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: expect.arrayContaining([
      { AttributeName: 'node_uuid', AttributeType: 'S' },
      { AttributeName: 'component', AttributeType: 'S' },
    ]),
    BillingMode: 'PAY_PER_REQUEST',
  });
  expect(table?.Properties.GlobalSecondaryIndexes).toBeUndefined();
  expect(table?.DeletionPolicy).toBe('Retain');
  template.hasOutput('FirmwareComponentsTable', { Value: { Ref: firmwareTableId() } });
});

it('lets the API and the conductor query, write and delete components, naming the table to both', () => {
  for (const fn of [/^Ironless api/, /^Ironless conductor/]) {
    expect(firmwareActions(fn)).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:BatchWriteItem']));
  }
  for (const description of ['^Ironless api', '^Ironless conductor']) {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp(description),
      Environment: { Variables: Match.objectLike({ FIRMWARE_COMPONENTS_TABLE: { Ref: firmwareTableId() } }) },
    });
  }
});

it('gives the conductor the firmware update settings that differ from Ironic’s defaults, and refuses negative ones', () => {
  const env = conductorVariables();
  expect(env).toMatchObject({ FIRMWARE_UPDATE_OVERALL_TIMEOUT: '3600', FIRMWARE_UPDATE_REQUIRED_SUCCESSES: '0' });
  // At their defaults (300 s, 30 s, …) no variable carries them.
  expect(
    Object.keys(env)
      .filter((name) => name.startsWith('FIRMWARE_UPDATE_'))
      .sort(),
  ).toEqual(['FIRMWARE_UPDATE_OVERALL_TIMEOUT', 'FIRMWARE_UPDATE_REQUIRED_SUCCESSES']);
  expect(() => new IronlessStack(new App(), 'BadDelay', { settings: { firmwareUpdateRebootDelaySeconds: -1 } })).toThrow(
    'firmwareUpdateRebootDelaySeconds (-1) must be a whole number, 0 or more',
  );
});

it('gives the conductor boot_mode_config_timeout when it differs from Ironic’s 900 s, and refuses a negative one', () => {
  expect(conductorVariables()).toMatchObject({ REDFISH_BOOT_MODE_CONFIG_TIMEOUT: '60' });
  expect(() => new IronlessStack(new App(), 'BadBootMode', { settings: { redfishBootModeConfigTimeoutSeconds: -1 } })).toThrow(
    'redfishBootModeConfigTimeoutSeconds (-1) must be a whole number, 0 or more',
  );
});

it('gives the conductor post_boot_retry_attempts and _delay when they differ from Ironic’s 6 and 5 s, and refuses less than 1', () => {
  const env = conductorVariables();
  expect(env).toMatchObject({ REDFISH_POST_BOOT_RETRY_ATTEMPTS: '3' });
  expect(env.REDFISH_POST_BOOT_RETRY_DELAY).toBeUndefined();
  expect(() => new IronlessStack(new App(), 'BadPostDelay', { settings: { redfishPostBootRetryDelaySeconds: 0 } })).toThrow(
    'redfishPostBootRetryDelaySeconds (0) must be a whole number, 1 or more',
  );
  expect(() => new IronlessStack(new App(), 'BadPostAttempts', { settings: { redfishPostBootRetryAttempts: 1.5 } })).toThrow(
    'redfishPostBootRetryAttempts (1.5) must be a whole number, 1 or more',
  );
});
