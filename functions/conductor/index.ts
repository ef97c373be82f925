/**
 * The conductor function. One Lambda, three kinds of events: SQS batches of RPC casts, tasks of the
 * steps state machine, and scheduled periodic tasks. Everything is built once at cold start, but
 * for the clients only rare events need (Lambda here, S3 for images in S3: lib/bundling.ts).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { Context, SQSEvent } from 'aws-lambda';
import { loadConductorConfig } from '#common/config';
import { once } from '#common/lazy';
import { selectRelease } from '#common/releases';
import { createDocumentClient } from '#db/client';
import { createStores } from '#db/stores';
import { tableNamesFromEnv } from '#db/schema';
import { invocationDeadline, stepDeadline } from './attempt';
import type { ConductorContext } from './context';
import { handleCall, handleSqsBatch } from './entries/rpc';
import { isCallEvent } from '#rpc/messages';
import { ConductorRpcClient } from '#rpc/client';
import { handleStepsTask, isStepsTask } from './entries/steps';
import { syncPowerStates } from './flows/power-sync';
import { failStuckNodes } from './flows/stuck';
import type { PageWalk } from './flows/periodic-pages';
import { failTimedOutWaits } from './flows/timeouts';
import { pollWaitingSteps } from './flows/polled-steps';
import { manageNodeHistory, recordingFailures } from './history';
import { expectedServices, serviceName, verifyServiceIdentities } from './identity';
import { Liveness } from './liveness';
import { SqsRedelivery } from './redelivery';
import { type PeriodicEvent, isPeriodicEvent } from './schedules';
import { SfnStepsRunner } from './steps-runner';

const config = loadConductorConfig();
const release = selectRelease(config.pinReleaseVersion);
const log = new Logger({ serviceName: 'ironless-conductor', persistentKeys: { host: config.hostname, release: release.release } });

const stores = createStores({ client: createDocumentClient('conductor'), tables: tableNamesFromEnv(process.env), release });

// Send to the endpoint the SDK resolves (a local queue URL is no valid endpoint), as the API does.
const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });

const ctx: ConductorContext = {
  config,
  log,
  // Every last_error the conductor saves also goes to the node's history (see history.ts).
  // History names the conductor by its stable name, which outlives the version that wrote it.
  nodes: recordingFailures(stores.nodes, { history: stores.nodeHistory, conductor: serviceName(config.functionName), log }),
  stores,
  // Step Functions throttles SendTask* and StartExecution too: a finished step must not be lost
  // to a few throttled calls (its task would then time out and fail the node).
  steps: new SfnStepsRunner(new SFNClient({ retryMode: 'adaptive', maxAttempts: 8 }), config.stepsStateMachineArn),
  redelivery: new SqsRedelivery(sqs, config.conductorQueues),
  // Casts the conductor sends itself: the work of a call that runs after its answer (spawn.ts).
  rpc: new ConductorRpcClient({
    sqs,
    queues: config.conductorQueues,
    versionCap: release.mapping.rpc,
  }),
};

// Cold start: refuse to run (the init fails, with the reason logged) when the identity recorded for
// a conductor group this version serves is not the one its environment describes (identity.ts).
await verifyServiceIdentities(stores.conductors, expectedServices(config.functionName, config.conductorQueues), { log });

const liveness = new Liveness(stores.conductors, config, log);
// Only a periodic task's next page invokes Lambda: its client is loaded then (lib/bundling.ts).
const lambda = once(async () => {
  const sdk = await import('@aws-sdk/client-lambda');
  return { client: new sdk.LambdaClient({}), InvokeCommand: sdk.InvokeCommand };
});

/** This conductor's `live` alias, which a periodic task's next page is sent to (whatever version runs it). */
const self = `${process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'conductor'}:live`;

/** Hand a periodic task's cursor to another invocation of this conductor, asynchronously. */
async function continuePeriodic(event: PeriodicEvent): Promise<void> {
  const { client, InvokeCommand } = await lambda();
  await client.send(
    new InvokeCommand({ FunctionName: self, InvocationType: 'Event', Payload: new TextEncoder().encode(JSON.stringify(event)) }),
  );
}

/** A periodic task's walk: from the event's cursor, the rest handed to another invocation. */
function walkFrom(event: PeriodicEvent): PageWalk {
  return {
    ...(typeof event.marker === 'string' ? { cursor: event.marker } : {}),
    continueAt: (marker) => continuePeriodic({ entry: 'periodic', task: event.task, marker }),
  };
}

function isSqsEvent(event: unknown): event is SQSEvent {
  const records = (event as { Records?: { eventSource?: string }[] })?.Records;
  return Array.isArray(records) && records.every((r) => r.eventSource === 'aws:sqs');
}

async function dispatch(event: unknown, context: Context): Promise<unknown> {
  if (isPeriodicEvent(event) && event.task === 'conductor_heartbeat') {
    const registered = (await liveness.beat()).map((r) => r.hostname);
    // After an upgrade the old version's registrations go, once dead long enough (liveness.ts).
    const retired = await liveness.retireStale().catch((err: unknown) => {
      log.warn('Could not retire stale conductor registrations', { error: String(err) });
      return [];
    });
    return { registered, retired };
  }
  await liveness.beatIfDue();
  // Each message and step of this invocation stops acting on hardware before it ends (attempt.ts).
  const remaining = context.getRemainingTimeInMillis();
  if (isSqsEvent(event)) return handleSqsBatch({ ...ctx, deadline: invocationDeadline(remaining) }, event);
  if (isCallEvent(event)) return handleCall({ ...ctx, deadline: invocationDeadline(remaining) }, event.message);
  if (isStepsTask(event)) return handleStepsTask({ ...ctx, deadline: stepDeadline(remaining, config.stepTimeoutSeconds) }, event);
  if (isPeriodicEvent(event)) {
    switch (event.task) {
      case 'fail_stuck_nodes':
        return await failStuckNodes(ctx, walkFrom(event));
      case 'sync_power_states':
        return await syncPowerStates(ctx, {
          ...(typeof event.marker === 'string' ? { marker: event.marker } : {}),
          continueAt: (marker) => continuePeriodic({ entry: 'periodic', task: 'sync_power_states', marker }),
        });
      case 'fail_timed_out_waits':
        return await failTimedOutWaits(ctx, walkFrom(event));
      case 'poll_waiting_steps':
        // It acts on BMCs: each node's poll stops before the invocation's end (attempt.ts).
        return await pollWaitingSteps({ ...ctx, deadline: invocationDeadline(remaining) }, walkFrom(event));
      case 'manage_node_history':
        return await manageNodeHistory({ nodes: ctx.nodes, history: ctx.stores.nodeHistory, log }, config.nodeHistory, walkFrom(event));
      case 'conductor_heartbeat':
        break; // answered above
    }
  }
  log.error('Unknown event', { event: JSON.stringify(event).slice(0, 1000) });
  throw new Error('The conductor does not know this kind of event');
}

export const handler = middy()
  .use(injectLambdaContext(log, { resetKeys: true }))
  .handler(dispatch);
