/**
 * The data layer on DynamoDB Local: DynamoDB round trips per store operation (counted by a proxy
 * in front of DynamoDB Local: the unit the AWS bill is made of), and online-migration throughput
 * on Node 1.0 items brought to 1.1 (instance_name). BENCH_MIGRATION_NODES sets the migration size.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { selectRelease } from '../../functions/common/releases';
import { createDocumentClient } from '../../functions/db/client';
import { dbsyncOnlineDataMigrations } from '../../functions/db/dbsync';
import { TABLE_CODECS } from '../../functions/db/codecs';
import { createStores } from '../../functions/db/stores';
import { DeployTemplate } from '../../functions/objects/deploy-template';
import type { Node } from '../../functions/objects/node';
import { Port } from '../../functions/objects/port';
import { createTables, startDynamoDbLocal } from '../../local/dynamodb';
import { DynamoDbProxy } from '../../local/dynamodb-proxy';
import { batchWrite, nodeItems } from '../integration/helpers/seed';
import { makeNode } from '../unit/helpers/builders';
import type { Bench } from './bench';

const MIGRATION_NODES = Number(process.env.BENCH_MIGRATION_NODES ?? 20_000);
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

const bench: Bench = {
  name: 'store',
  async run({ log }) {
    const dynamo = await startDynamoDbLocal();
    const counter = new DynamoDbProxy(dynamo.endpoint);
    const raw = new DynamoDBClient({ endpoint: await counter.start(), region: 'us-east-1', credentials, maxAttempts: 10 });
    try {
      const client = createDocumentClient(raw);
      const tables = await createTables(raw, 'bench');
      const stores = createStores({ client, tables, release: selectRelease('') });

      /**
       * Requests by operation ("GetItem": 1) that one `op` makes, averaged over `times` runs;
       * `setup` runs first each time, uncounted.
       */
      const roundTrips = async (times: number, op: (i: number) => Promise<unknown>, setup?: (i: number) => Promise<void>) => {
        const totals = new Map<string, number>();
        let ms = 0;
        for (let i = 0; i < times; i++) {
          await setup?.(i);
          counter.reset();
          const started = performance.now();
          await op(i);
          ms += performance.now() - started;
          for (const [name, n] of counter.counts) totals.set(name, (totals.get(name) ?? 0) + n);
        }
        const requests: Record<string, number> = {};
        for (const [name, n] of totals) requests[name.replace('DynamoDB_20120810.', '')] = Number((n / times).toFixed(2));
        return { requests, msEach: Number((ms / times).toFixed(2)) };
      };

      const named = await stores.nodes.create(makeNode({ name: 'bench-0', instance_uuid: randomUUID() }));
      for (let i = 0; i < 150; i++) await stores.nodes.create(makeNode());
      const ports: Port[] = [];
      let copy: Node | undefined;
      const figures = {
        'GET node (by uuid)': await roundTrips(50, () => stores.nodes.get(named.uuid)),
        'GET node by name': await roundTrips(50, () => stores.nodes.getByName('bench-0')),
        'create node': await roundTrips(50, () => stores.nodes.create(makeNode())),
        'create node with a unique name': await roundTrips(50, (i) => stores.nodes.create(makeNode({ name: `bench-${i + 1}` }))),
        'save node': await roundTrips(
          50,
          () => stores.nodes.save(copy!),
          async () => {
            copy = await stores.nodes.get(named.uuid);
            copy.extra = { at: Date.now() };
          },
        ),
        'reserve node': await roundTrips(
          50,
          async (i) => (copy = await stores.nodes.reserve(named.uuid, { host: 'bench', token: `t${i}`, ttlSeconds: 60 })),
          async () => {
            if (copy?.storeMeta?.lockOwner !== undefined) await stores.nodes.release(copy);
          },
        ),
        'release node': await roundTrips(
          50,
          () => stores.nodes.release(copy!),
          async (i) => {
            if (copy?.storeMeta?.lockOwner !== undefined) await stores.nodes.release(copy);
            copy = await stores.nodes.reserve(named.uuid, { host: 'bench', token: `r${i}`, ttlSeconds: 60 });
          },
        ),
        'destroy node (no ports)': await roundTrips(
          20,
          () => stores.nodes.destroy(copy!),
          async () => {
            copy = await stores.nodes.create(makeNode());
          },
        ),
        'list 100 nodes (first page)': await roundTrips(10, () => stores.nodes.list({}, { limit: 100 })),
        'list nodes by instance_uuid': await roundTrips(10, () =>
          stores.nodes.list({ instanceUuid: named.instance_uuid! }, { limit: 100 }),
        ),
        'create port with a unique MAC (node checked)': await roundTrips(50, async (i) => {
          const address = `52:54:00:00:${Math.floor(i / 256)
            .toString(16)
            .padStart(2, '0')}:${(i % 256).toString(16).padStart(2, '0')}`;
          ports.push(await stores.ports.create(new Port({ uuid: randomUUID(), node_uuid: named.uuid, address })));
        }),
        'GET port by MAC': await roundTrips(50, (i) => stores.ports.getByAddress(ports[i]!.address!)),
        'list ports of a node': await roundTrips(10, () => stores.ports.list({ nodeUuid: named.uuid }, { limit: 100 })),
        'deploy templates for 3 traits': await roundTrips(
          10,
          () => stores.deployTemplates.getByNames(['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C']),
          async (i) => {
            if (i > 0) return;
            for (const name of ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C']) {
              await stores.deployTemplates.create(new DeployTemplate({ uuid: randomUUID(), name, steps: [] }));
            }
          },
        ),
      };
      log('store operations measured; seeding nodes for the migration');

      const migrationTable = (await createTables(raw, 'bench-migration')).nodes;
      let started = performance.now();
      await batchWrite(client, migrationTable, nodeItems(MIGRATION_NODES));
      const seedSeconds = (performance.now() - started) / 1000;
      log(`${MIGRATION_NODES} nodes seeded in ${seedSeconds.toFixed(1)} s; migrating`);
      counter.reset();
      started = performance.now();
      const ctx = { client, tables: [{ table: migrationTable, codec: TABLE_CODECS.nodes }], release: selectRelease('') };
      const outcome = await dbsyncOnlineDataMigrations(ctx);
      const seconds = (performance.now() - started) / 1000;
      const migrationRequests = Object.fromEntries([...counter.counts].map(([op, n]) => [op.replace('DynamoDB_20120810.', ''), n]));
      counter.reset();
      started = performance.now();
      const again = await dbsyncOnlineDataMigrations(ctx);
      const secondSeconds = (performance.now() - started) / 1000;
      if (outcome.exitCode !== 0 || again.exitCode !== 0) throw new Error(`migration failed: ${JSON.stringify([outcome, again])}`);

      return {
        dynamodb: 'DynamoDB Local (amplify-dynamodb-simulator), in memory',
        roundTripsPerOperation: figures,
        onlineMigration: {
          nodes: MIGRATION_NODES,
          migrated: outcome.data?.migrations?.[0]?.migrated,
          seconds: Number(seconds.toFixed(1)),
          itemsPerSecond: Math.round(MIGRATION_NODES / seconds),
          requests: migrationRequests,
          secondRunSeconds: Number(secondSeconds.toFixed(1)),
          seedItemsPerSecond: Math.round(MIGRATION_NODES / seedSeconds),
        },
        note: 'Round trips are per operation, not counting the reads that set an operation up (the GET before a save).',
      };
    } finally {
      raw.destroy();
      await counter.stop();
      await dynamo.stop();
    }
  },
};

export default bench;
