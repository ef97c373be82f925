/**
 * Inspection rules in the CDK stack: their table (by UUID, with the byId index every object table
 * lists through), kept like every table, which the API writes and the conductor reads when an
 * inspection finishes, named to both.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { IronlessStack } from '../../lib/ironless-stack';
import { tableActions } from './helpers';

const template = Template.fromStack(new IronlessStack(new App(), 'InspectionRules'));
const resources = (type: string) =>
  template.findResources(type) as Record<string, { Properties: Record<string, unknown>; DeletionPolicy?: string }>;

/** The table whose physical name the stack outputs as InspectionRulesTable. */
const rulesTableId = (): string => {
  const outputs = template.toJSON().Outputs as Record<string, { Value: { Ref: string } }>;
  return outputs.InspectionRulesTable?.Value.Ref as string;
};

/** The actions the role of a function (found by its description) may take on the table. */
const ruleTableActions = (description: RegExp): string[] => tableActions(template, description, rulesTableId());

it('creates the inspection rules table: keyed by uuid, listed through byId, on demand, retained', () => {
  const table = resources('AWS::DynamoDB::GlobalTable')[rulesTableId()];
  expect(table?.Properties).toMatchObject({
    KeySchema: [{ AttributeName: 'uuid', KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST',
    GlobalSecondaryIndexes: [
      expect.objectContaining({
        IndexName: 'byId',
        KeySchema: [
          { AttributeName: '_all', KeyType: 'HASH' },
          { AttributeName: '_id', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      }),
    ],
  });
  expect(table?.DeletionPolicy).toBe('Retain');
});

it('lets the API write rules and the conductor read them, naming the table to both', () => {
  expect(ruleTableActions(/^Ironless api/)).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:Query']));
  expect(ruleTableActions(/^Ironless conductor/)).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:BatchGetItem']));
  for (const description of ['^Ironless api', '^Ironless conductor']) {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp(description),
      Environment: { Variables: Match.objectLike({ INSPECTION_RULES_TABLE: { Ref: rulesTableId() } }) },
    });
  }
});
