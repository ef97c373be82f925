/**
 * Runbooks in the CDK stack: their table, keyed by UUID with the creation-ordered `byId` index
 * every object table lists from, retained, which the API reads and writes, named to it.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { IronlessStack } from '../../lib/ironless-stack';
import { tableActions } from './helpers';

const template = Template.fromStack(new IronlessStack(new App(), 'Runbooks'));
const resources = (type: string) =>
  template.findResources(type) as Record<string, { Properties: Record<string, unknown>; DeletionPolicy?: string }>;

/** The runbooks table: the one the stack outputs as RunbooksTable. */
const runbookTableId = (): string => {
  const outputs = template.findOutputs('RunbooksTable') as Record<string, { Value: { Ref: string } }>;
  return Object.values(outputs)[0]?.Value.Ref as string;
};

/** The actions the role of a function (found by its description) may take on the table. */
const runbookActions = (description: RegExp): string[] => tableActions(template, description, runbookTableId());

it('creates the runbooks table: UUID as key, the byId index (keys only), on demand, retained', () => {
  const table = resources('AWS::DynamoDB::GlobalTable')[runbookTableId()];
  expect(table?.Properties).toMatchObject({
    KeySchema: [{ AttributeName: 'uuid', KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST',
    GlobalSecondaryIndexes: [
      {
        IndexName: 'byId',
        KeySchema: [
          { AttributeName: '_all', KeyType: 'HASH' },
          { AttributeName: '_id', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ],
  });
  expect(table?.DeletionPolicy).toBe('Retain');
});

it('lets the API read and write runbooks (and their name guards in one transaction), naming the table to it', () => {
  expect(runbookActions(/^Ironless api/)).toEqual(
    expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:Query', 'dynamodb:BatchGetItem']),
  );
  template.hasResourceProperties('AWS::Lambda::Function', {
    Description: Match.stringLikeRegexp('^Ironless api'),
    Environment: { Variables: Match.objectLike({ RUNBOOKS_TABLE: { Ref: runbookTableId() } }) },
  });
});
