/**
 * Volume connectors and targets in the CDK stack: a table each (keyed by uuid, with the byId and
 * byNode indexes the API lists from), retained like every table, read and written by the API,
 * named to the functions and in the stack's outputs (which `ironless upgrade` and dbsync read).
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { TABLES } from '../../functions/db/schema';
import { IronlessStack } from '../../lib/ironless-stack';

const template = Template.fromStack(new IronlessStack(new App(), 'Volume'));
const resources = (type: string) =>
  template.findResources(type) as Record<string, { Properties: Record<string, unknown>; DeletionPolicy?: string }>;

/** The table whose environment variable is `envVar`, found through the API function's environment. */
function tableId(envVar: string): string {
  const api = Object.values(resources('AWS::Lambda::Function')).find((f) => /^Ironless api/.test(String(f.Properties.Description)));
  const variables = (api?.Properties.Environment as { Variables: Record<string, { Ref?: string }> }).Variables;
  return variables[envVar]?.Ref as string;
}

describe.each([
  ['volume_connectors', 'VolumeConnectorsTable'],
  ['volume_targets', 'VolumeTargetsTable'],
] as const)('%s', (name, output) => {
  const id = () => tableId(TABLES[name].envVar);

  it('is a table keyed by uuid with byId and byNode (keys only), retained', () => {
    const table = resources('AWS::DynamoDB::GlobalTable')[id()];
    expect(table?.DeletionPolicy).toBe('Retain');
    expect(table?.Properties).toMatchObject({
      KeySchema: [{ AttributeName: 'uuid', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    });
    const indexes = table?.Properties.GlobalSecondaryIndexes as { IndexName: string; KeySchema: unknown; Projection: unknown }[];
    expect(indexes.map((i) => [i.IndexName, i.KeySchema, i.Projection])).toEqual([
      [
        'byId',
        [
          { AttributeName: '_all', KeyType: 'HASH' },
          { AttributeName: '_id', KeyType: 'RANGE' },
        ],
        { ProjectionType: 'KEYS_ONLY' },
      ],
      [
        'byNode',
        [
          { AttributeName: '_node', KeyType: 'HASH' },
          { AttributeName: '_id', KeyType: 'RANGE' },
        ],
        { ProjectionType: 'KEYS_ONLY' },
      ],
    ]);
    template.hasOutput(output, { Value: { Ref: id() } });
  });

  it('is named to the API and the conductor (which deletes a node with its volume items)', () => {
    for (const description of ['^Ironless api', '^Ironless conductor']) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: Match.stringLikeRegexp(description),
        Environment: { Variables: Match.objectLike({ [TABLES[name].envVar]: { Ref: id() } }) },
      });
    }
  });

  it('may be read and written, with its indexes, by the API', () => {
    const statements = Object.values(resources('AWS::IAM::Policy'))
      .flatMap((p) => (p.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement)
      .filter((s) => JSON.stringify(s.Resource).includes(id()));
    const actions = statements.flatMap((s) => [s.Action].flat());
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem']));
    expect(JSON.stringify(statements)).toContain('/index/*');
  });
});
