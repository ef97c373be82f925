/** Test builders: objects with sensible defaults, overridable per test. */
import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { Node, type NodeData } from '../../../functions/objects/node';
import type { NodeStore } from '../../../functions/db/nodes';
import type { Stores } from '../../../functions/db/stores';
import type { ConductorContext, Decision, StepsInput, StepsRunner } from '../../../functions/conductor/context';
import type { ConductorConfig } from '../../../functions/common/config';
import { MemoryNodeStore } from './memory-node-store';

export function makeNode(overrides: Partial<NodeData> = {}): Node {
  return new Node({
    uuid: randomUUID(),
    driver: 'fake-hardware',
    provision_state: 'enroll',
    created_at: new Date().toISOString(),
    ...Object.fromEntries(
      ['bios', 'boot', 'console', 'deploy', 'firmware', 'inspect', 'management', 'power', 'raid', 'rescue', 'vendor'].map((i) => [
        `${i}_interface`,
        'fake',
      ]),
    ),
    network_interface: 'noop',
    storage_interface: 'noop',
    ...overrides,
  });
}

/** Records the executions a flow starts instead of running them. */
export class RecordingStepsRunner implements StepsRunner {
  readonly started: { name: string; input: StepsInput }[] = [];
  async start(name: string, input: StepsInput): Promise<string> {
    if (!this.started.some((s) => s.name === name)) this.started.push({ name, input });
    return `arn:aws:states:us-east-1:000000000000:execution:steps:${name}`;
  }
  readonly stopped: string[] = [];
  async stop(name: string): Promise<void> {
    this.stopped.push(name);
  }
  /** Task-token calls in order; tokens in `gone` answer as Step Functions does for a finished task. */
  readonly tokenCalls: { call: 'succeed' | 'fail' | 'heartbeat'; token: string; decision?: Decision; error?: string; cause?: string }[] =
    [];
  readonly gone = new Set<string>();
  async succeed(token: string, decision: Decision): Promise<boolean> {
    this.tokenCalls.push({ call: 'succeed', token, decision });
    return !this.gone.has(token);
  }
  async fail(token: string, error: string, cause: string): Promise<boolean> {
    this.tokenCalls.push({ call: 'fail', token, error, cause });
    return !this.gone.has(token);
  }
  async heartbeat(token: string): Promise<boolean> {
    this.tokenCalls.push({ call: 'heartbeat', token });
    return !this.gone.has(token);
  }
}

export function makeConductorContext(
  overrides: Partial<ConductorConfig> = {},
): ConductorContext & { nodes: MemoryNodeStore; steps: RecordingStepsRunner } {
  const nodes = new MemoryNodeStore();
  return {
    config: {
      pinReleaseVersion: '',
      lockTtlSeconds: 300,
      conductorQueues: { '': 'queue' },
      stepsStateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:steps',
      conductorGroup: '',
      hostname: 'conductor:1',
      functionName: 'conductor',
      automatedClean: true,
      enableHealthMonitoring: true,
      maxWaitStepSeconds: 30,
      inspectWaitTimeoutSeconds: 1800,
      stepTimeoutSeconds: 100,
      heartbeatTimeoutSeconds: 300,
      callbackTimeoutSeconds: 1800,
      conductorHeartbeatTimeoutSeconds: 60,
      enabledHardwareTypes: undefined,
      nodeHistory: { maxEntries: 300, batchCount: 1000, minimumDays: 0 },
      powerSync: { force: true, maxRetries: 3, workers: 8 },
      ...overrides,
    },
    nodes,
    stores: storesWith(nodes),
    steps: new RecordingStepsRunner(),
    log: new Logger({ serviceName: 'test', logLevel: 'SILENT' }),
  };
}

/**
 * Stores for a unit test: the given ones, and for any other a store whose every method fails
 * saying which store the test did not provide (so a flow touching it shows up at once).
 */
export function storesWith(nodes: NodeStore, others: Partial<Stores> = {}): Stores {
  const given: Partial<Stores> = { nodes, ...others };
  return new Proxy(given as Stores, {
    get(target, name: string) {
      const store = target[name as keyof Stores];
      if (store !== undefined) return store;
      return new Proxy(
        {},
        {
          get(_t, method: string) {
            return () => Promise.reject(new Error(`unit test provides no ${name} store (called ${method})`));
          },
        },
      );
    },
  });
}
