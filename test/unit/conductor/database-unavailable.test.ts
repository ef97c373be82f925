/**
 * DynamoDB unavailable beyond the client's retries (DatabaseUnavailable) is never the node's
 * failure: an RPC message fails its record, gives its node's lock back to the message and asks SQS
 * for an early redelivery, which then does the work; flows that fail the node for other errors let
 * it through.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { DatabaseUnavailable } from '../../../functions/common/errors';
import type { ConductorContext } from '../../../functions/conductor/context';
import { handleSqsBatch } from '../../../functions/conductor/entries/rpc';
import { doNodeDeploy } from '../../../functions/conductor/flows/deploy';
import { doInspect } from '../../../functions/conductor/flows/inspection';
import { type Redelivery, redeliveryDelaySeconds } from '../../../functions/conductor/redelivery';
import { fakeInspect } from '../../../functions/drivers/fake';
import type { NodeStore } from '../../../functions/db/nodes';
import type { Stores } from '../../../functions/db/stores';
import { RPC_API_VERSION } from '../../../functions/rpc/messages';
import { makeConductorContext, makeNode, storesWith } from '../helpers/builders';

const unavailable = () => new DatabaseUnavailable('DynamoDB ProvisionedThroughputExceededException: injected', false);

/** The node store, its `save` failing the `nth` time it is called (and only then). */
function savesFailing(nodes: NodeStore, nth: number): NodeStore {
  let saves = 0;
  return new Proxy(nodes, {
    get(target, name: keyof NodeStore) {
      if (name !== 'save') return target[name].bind(target);
      return (...args: Parameters<NodeStore['save']>) => (++saves === nth ? Promise.reject(unavailable()) : target.save(...args));
    },
  });
}

class RecordingRedelivery implements Redelivery {
  readonly asked: { messageId: string; seconds: number }[] = [];
  async after(record: SQSRecord, seconds: number): Promise<void> {
    this.asked.push({ messageId: record.messageId, seconds });
  }
}

function sqsEvent(body: unknown, receiveCount = 1): SQSEvent {
  return {
    Records: [
      {
        messageId: 'sqs-1',
        receiptHandle: 'r-1',
        body: JSON.stringify(body),
        attributes: {
          ApproximateReceiveCount: String(receiveCount),
          SentTimestamp: '0',
          SenderId: 'api',
          ApproximateFirstReceiveTimestamp: '0',
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:queue',
        awsRegion: 'us-east-1',
      },
    ],
  };
}

describe('an RPC message DynamoDB could not serve', () => {
  it('fails its record, gives the node’s lock back to the message, asks for an early redelivery, which then does the work', async () => {
    const base = makeConductorContext();
    const node = await base.nodes.create(makeNode({ power_state: 'power off' }));
    node.target_power_state = 'power on';
    await base.nodes.save(node, { lockFor: { host: 'api', token: 'rpc:m1', ttlSeconds: 300 } });
    const redelivery = new RecordingRedelivery();
    const message = {
      rpc: RPC_API_VERSION,
      method: 'change_node_power_state',
      args: { node_id: node.uuid, lock_token: 'rpc:m1', target: 'power on' },
      context: { request_id: 'req-1' },
      message_id: 'm1',
    };
    // The claim (save 1) goes through; the save that records the power state (save 2) fails.
    const failing: ConductorContext = { ...base, nodes: savesFailing(base.nodes, 2), redelivery };
    // Its only record failed: the batch fails as a whole (Powertools' FullBatchFailureError), and SQS delivers it again.
    await expect(handleSqsBatch(failing, sqsEvent(message))).rejects.toMatchObject({ name: 'FullBatchFailureError' });
    const between = await base.nodes.get(node.uuid);
    expect(between).toMatchObject({ target_power_state: 'power on', reservation: 'conductor:live', last_error: null });
    expect(between.storeMeta?.lockHolder).toBe('rpc:m1');
    expect(redelivery.asked).toEqual([{ messageId: 'sqs-1', seconds: expect.any(Number) }]);
    expect(redelivery.asked[0]!.seconds).toBeLessThanOrEqual(5);

    expect(await handleSqsBatch({ ...base, redelivery }, sqsEvent(message, 2))).toEqual({ batchItemFailures: [] });
    expect(await base.nodes.get(node.uuid)).toMatchObject({ power_state: 'power on', target_power_state: null, reservation: null });
  });

  it('is delivered again later the more often it was, within a node lock’s lifetime', () => {
    expect([1, 2, 3, 4, 5, 9].map((n) => redeliveryDelaySeconds(n, () => 1))).toEqual([5, 10, 20, 40, 60, 60]);
    expect(redeliveryDelaySeconds(1, () => 0)).toBeGreaterThanOrEqual(1);
  });
});

describe('flows that fail the node for other errors', () => {
  it('deploy: planning that cannot read deploy templates ends the delivery before the claim; the node is not failed', async () => {
    const base = makeConductorContext();
    const stores: Stores = storesWith(base.nodes, {
      deployTemplates: { getByNames: () => Promise.reject(unavailable()) } as unknown as Stores['deployTemplates'],
    });
    const ctx: ConductorContext = { ...base, stores };
    const node = await base.nodes.create(makeNode({ provision_state: 'available', instance_info: { traits: ['CUSTOM_X'] } }));
    node.processEvent('deploy');
    await base.nodes.save(node, { lockFor: { host: 'api', token: 'rpc:d1', ttlSeconds: 300 } });
    await expect(doNodeDeploy(ctx, { node_id: node.uuid, lock_token: 'rpc:d1', message_id: 'd1' })).rejects.toBeInstanceOf(
      DatabaseUnavailable,
    );
    const after = await base.nodes.get(node.uuid);
    expect(after).toMatchObject({ provision_state: 'deploying', last_error: null });
    expect(after.storeMeta?.lockHolder).toBe('rpc:d1');
  });

  it('inspection: ports that cannot be created fail the delivery, not the inspection', async () => {
    const base = makeConductorContext();
    const stores: Stores = storesWith(base.nodes, {
      ports: { create: () => Promise.reject(unavailable()) } as unknown as Stores['ports'],
    });
    const ctx: ConductorContext = { ...base, stores };
    // The fake inspection finds one NIC, whose port the conductor creates.
    const inspect = fakeInspect.inspectHardware;
    fakeInspect.inspectHardware = async (task) => ({ ...(await inspect(task)), macs: ['52:54:00:12:34:56'] });
    const node = await base.nodes.create(makeNode({ provision_state: 'manageable' }));
    node.processEvent('inspect');
    await base.nodes.save(node, { lockFor: { host: 'api', token: 'rpc:i1', ttlSeconds: 300 } });
    try {
      await expect(doInspect(ctx, { node_id: node.uuid, lock_token: 'rpc:i1', message_id: 'i1' })).rejects.toBeInstanceOf(
        DatabaseUnavailable,
      );
    } finally {
      fakeInspect.inspectHardware = inspect;
    }
    expect(await base.nodes.get(node.uuid)).toMatchObject({ provision_state: 'inspecting', last_error: null });
  });
});
