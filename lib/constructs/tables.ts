/**
 * The DynamoDB tables of `functions/db/schema.ts`: on demand, encrypted, point-in-time recovery,
 * retained when the stack goes. Keys and indexes come from the schema, never from here.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, type ITableV2, ProjectionType, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { INDEX_PROJECTION, TABLES, type TableDef, type TableName } from '../../functions/db/schema';

/** The DynamoDB actions on items that the functions use. */
export const TABLE_ITEM_ACTIONS = [
  'GetItem',
  'BatchGetItem',
  'Query',
  'Scan',
  'ConditionCheckItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
] as const;

export interface TablesProps {
  /**
   * What happens to the tables when the stack is deleted.
   * @default RemovalPolicy.RETAIN — node records outlive a stack; delete them deliberately.
   */
  readonly removalPolicy?: RemovalPolicy;
}

export class Tables extends Construct {
  readonly tables: Readonly<Record<TableName, ITableV2>>;

  constructor(scope: Construct, id: string, props: TablesProps = {}) {
    super(scope, id);
    if (INDEX_PROJECTION !== 'KEYS_ONLY') throw new Error(`Unsupported index projection ${String(INDEX_PROJECTION)}`);
    const tables = {} as Record<TableName, ITableV2>;
    for (const name of Object.keys(TABLES) as TableName[]) {
      const def: TableDef = TABLES[name];
      tables[name] = new TableV2(this, name, {
        partitionKey: { name: def.partitionKey, type: AttributeType.STRING },
        ...(def.sortKey ? { sortKey: { name: def.sortKey, type: AttributeType.STRING } } : {}),
        billing: Billing.onDemand(),
        encryption: TableEncryptionV2.awsManagedKey(),
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        deletionProtection: props.removalPolicy === undefined || props.removalPolicy === RemovalPolicy.RETAIN,
        removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
        globalSecondaryIndexes: def.indexes.map((index) => ({
          indexName: index.name,
          partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
          ...(index.sortKey ? { sortKey: { name: index.sortKey, type: AttributeType.STRING } } : {}),
          projectionType: ProjectionType.KEYS_ONLY,
        })),
      });
    }
    this.tables = tables;
  }

  /** The variables through which functions learn the table names (named by the schema). */
  environment(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const name of Object.keys(TABLES) as TableName[]) env[TABLES[name].envVar] = this.tables[name].tableName;
    return env;
  }

  /**
   * Read and write the items of every table and its indexes: the item actions the code calls
   * (transactions are authorized per item action), in one statement. Not `grantReadWriteData`:
   * it adds stream reads and DescribeTable, which nothing uses, per table — enough statements to
   * push a role's policy past IAM's size limit.
   */
  grantReadWrite(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: TABLE_ITEM_ACTIONS.map((a) => `dynamodb:${a}`),
        resources: Object.values(this.tables).flatMap((t) => [t.tableArn, `${t.tableArn}/index/*`]),
      }),
    );
  }
}
