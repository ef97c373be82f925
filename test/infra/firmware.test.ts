/**
 * Firmware components in the CDK stack: their table, keyed by the node's UUID and the component's
 * name, no index, kept like every table, which the API reads and the conductor writes, named to both.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { IronlessStack } from '../../lib/ironless-stack';
import { tableActions } from './helpers';

const template = Template.fromStack(new IronlessStack(new App(), 'Firmware'));
const resources = (type: string) =>
  template.findResources(type) as Record<string, { Properties: Record<string, unknown>; DeletionPolicy?: string }>;

const firmwareTableId = () =>
  Object.entries(resources('AWS::DynamoDB::GlobalTable')).find(([, t]) =>
    JSON.stringify(t.Properties.KeySchema).includes('"component"'),
  )?.[0] as string;

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
