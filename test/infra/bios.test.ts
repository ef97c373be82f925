/**
 * BIOS settings in the CDK stack: their table, keyed by the node's UUID and the setting's name (the
 * first table with a sort key), no index, kept like every table, which the API reads and the
 * conductor writes, named to both.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { IronlessStack } from '../../lib/ironless-stack';
import { tableActions } from './helpers';

const template = Template.fromStack(new IronlessStack(new App(), 'Bios'));
const resources = (type: string) =>
  template.findResources(type) as Record<string, { Properties: Record<string, unknown>; DeletionPolicy?: string }>;

const biosTableId = () =>
  Object.entries(resources('AWS::DynamoDB::GlobalTable')).find(([, t]) =>
    JSON.stringify(t.Properties.KeySchema).includes('"name"'),
  )?.[0] as string;

/** The actions the role of a function (found by its description) may take on the table. */
const biosActions = (description: RegExp): string[] => tableActions(template, description, biosTableId());

it('creates the BIOS settings table: node UUID and setting name as keys, no index, retained', () => {
  const table = resources('AWS::DynamoDB::GlobalTable')[biosTableId()];
  expect(table?.Properties).toMatchObject({
    KeySchema: [
      { AttributeName: 'node_uuid', KeyType: 'HASH' },
      { AttributeName: 'name', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: expect.arrayContaining([
      { AttributeName: 'node_uuid', AttributeType: 'S' },
      { AttributeName: 'name', AttributeType: 'S' },
    ]),
    BillingMode: 'PAY_PER_REQUEST',
  });
  expect(table?.Properties.GlobalSecondaryIndexes).toBeUndefined();
  expect(table?.DeletionPolicy).toBe('Retain');
  template.hasOutput('BiosSettingsTable', { Value: { Ref: biosTableId() } });
});

it('lets the API and the conductor query, write and delete settings, naming the table to both', () => {
  for (const fn of [/^Ironless api/, /^Ironless conductor/]) {
    expect(biosActions(fn)).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:BatchWriteItem']));
  }
  for (const description of ['^Ironless api', '^Ironless conductor']) {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp(description),
      Environment: { Variables: Match.objectLike({ BIOS_SETTINGS_TABLE: { Ref: biosTableId() } }) },
    });
  }
});
