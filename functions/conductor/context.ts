/**
 * The conductor's dependencies, built once per cold start and passed to every flow, so flows are
 * plain functions a unit test can call with in-memory ports.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { ConductorConfig } from '#common/config';
import type { Stores } from '#db/stores';
import type { NodeStore } from '#db/nodes';
import type { Step } from '#drivers/base';
import type { ConductorRpcClient } from '#rpc/client';
import type { Redelivery } from './redelivery';

/** Starting Step Functions executions of the steps machine. */
export interface StepsRunner {
  /**
   * Start an execution named `name`. Starting a running execution again with the same name and
   * input is a no-op (Step Functions' own idempotency), so a redelivered message is harmless.
   */
  start(name: string, input: StepsInput): Promise<string>;
  /** Stop a running execution (abort); stopping one that already ended is a no-op. */
  stop(name: string, cause: string): Promise<void>;
  /**
   * Complete the waiting (asynchronous) task holding `token` with the next decision. False when the
   * token is no longer valid (the task timed out or the execution was stopped).
   */
  succeed(token: string, decision: Decision): Promise<boolean>;
  /** Fail the waiting task: the execution's Catch runs the failure path with this error. */
  fail(token: string, error: string, cause: string): Promise<boolean>;
  /** Keep the waiting task alive (resets its HeartbeatSeconds clock). */
  heartbeat(token: string): Promise<boolean>;
}

/** Input of a steps-machine execution; also what each of its tasks receives. */
export interface StepsInput {
  readonly flow: FlowName;
  readonly node: string;
  /** Token of the node lock the execution holds. */
  readonly owner: string;
  readonly decision: Decision;
}

export type FlowName = 'deploy' | 'clean' | 'service';

/** What the steps machine does next: run a step synchronously, start one and wait, or finish. */
export interface Decision {
  readonly mode: 'sync' | 'async' | 'done';
  readonly step: Step | null;
}

export interface ConductorContext {
  readonly config: ConductorConfig;
  /** The node store (also `stores.nodes`). */
  readonly nodes: NodeStore;
  /** Every store: ports, portgroups, chassis, conductors, deploy templates, allocations, history. */
  readonly stores: Stores;
  readonly steps: StepsRunner;
  readonly log: Logger;
  /**
   * When the work of this invocation on one message or step must stop acting on hardware (epoch
   * ms), so that it ends before the invocation does: set per invocation by the entries
   * (`entries/deadline.ts`); absent (tests, periodic tasks), nothing is time-bounded.
   */
  readonly deadline?: number;
  /**
   * The RPC message being handled is on its last delivery (the next failure moves it to the DLQ):
   * running out of time then fails the action as any other error, rather than asking for a retry.
   */
  readonly finalDelivery?: boolean;
  /**
   * Casting to the conductors' queues, capped at this conductor's pinned RPC version: the work
   * Ironic's conductor spawns after answering a call (see `spawn.ts`) is cast here. Absent (unit
   * tests), or capped below the cast's version, that work runs within the call.
   */
  readonly rpc?: Pick<ConductorRpcClient, 'canSend' | 'message' | 'cast'>;
  /** Asking SQS for an early redelivery of a message DynamoDB could not serve; without it, the queue's visibility timeout. */
  readonly redelivery?: Redelivery;
}
