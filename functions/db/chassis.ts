/** The chassis store. A chassis that still holds nodes cannot be destroyed (ChassisNotEmpty). */
import { QueryCommand } from './dynamo';
import { ChassisAlreadyExists, ChassisNotEmpty, ChassisNotFound } from '#common/errors';
import { Chassis } from '#objects/chassis';
import type { ObjectCodec } from './items';
import { sparseKey } from './keys';
import type { Page, PageOf } from './query';
import { ObjectTable, type StoreContext } from './table';

export interface ChassisStore {
  get(uuid: string): Promise<Chassis>;
  create(chassis: Chassis): Promise<Chassis>;
  save(chassis: Chassis): Promise<Chassis>;
  destroy(chassis: Chassis): Promise<void>;
  list(page: Page): Promise<PageOf<Chassis>>;
}

export const CHASSIS_CODEC: ObjectCodec<Chassis> = {
  cls: Chassis,
  keyName: 'uuid',
  derive: () => ({ _all: 'chassis' }),
  guards: () => [],
};

export class DynamoChassisStore extends ObjectTable<Chassis> implements ChassisStore {
  private readonly nodesTable: string;

  constructor(ctx: StoreContext) {
    super(ctx, 'chassis', CHASSIS_CODEC, {
      notFound: (ident) => new ChassisNotFound(ident),
      alreadyExists: (chassis) => new ChassisAlreadyExists(chassis.uuid),
      duplicate: (_key, chassis) => new ChassisAlreadyExists(chassis.uuid),
    });
    this.nodesTable = ctx.tables.nodes;
  }

  create(chassis: Chassis): Promise<Chassis> {
    return this.createObject(chassis);
  }

  save(chassis: Chassis): Promise<Chassis> {
    return this.saveObject(chassis);
  }

  async destroy(chassis: Chassis): Promise<void> {
    // NOTE: nodes are written with a check that their chassis exists, so only a node written
    // between this query and the delete can be left with a dangling chassis_uuid.
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.nodesTable,
        IndexName: 'byChassis',
        KeyConditionExpression: '#c = :c',
        ExpressionAttributeNames: { '#c': '_chassis' },
        ExpressionAttributeValues: { ':c': sparseKey(chassis.uuid) },
        Limit: 1,
      }),
    );
    if ((Items ?? []).length > 0) throw new ChassisNotEmpty(chassis.uuid);
    return this.destroyObject(chassis);
  }

  list(page: Page): Promise<PageOf<Chassis>> {
    return this.listFrom({ indexes: [{ index: 'byId', keyName: '_all', value: 'chassis' }] }, page);
  }
}
