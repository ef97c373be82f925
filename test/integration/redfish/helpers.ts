/** A virtual fleet on loopback and redfish tasks pointing at its machines, for driver tests over real HTTP. */
import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import type { InspectionTask } from '../../../functions/drivers/base';
import { tmpdir } from 'node:os';
import { ANY_HOST, HostRules } from '../../../functions/drivers/hosts';
import type { RedfishConfig } from '../../../functions/drivers/redfish/config';
import { PROJECT_ROOT } from '../../../lib/bundling';
import { createRedfishInterfaces } from '../../../functions/drivers/redfish/index';
import { Node, type NodeData } from '../../../functions/objects/node';
import { Port } from '../../../functions/objects/port';
import { Fleet } from '../../../local/fleet/fleet';
import type { VirtualMachine } from '../../../local/fleet/machine';

/** Short deadlines so a fault ends a test in seconds; the retry/backoff logic is the same as production's. */
export const TEST_CONFIG: RedfishConfig = {
  attempts: 2,
  retryIntervalMs: 100,
  connectTimeoutMs: 1_000,
  readTimeoutMs: 1_000,
  powerStateChangeTimeoutMs: 3_000,
  powerPollIntervalMs: 50,
  // The fleet's BMCs live on loopback, which the default policy refuses; CA files in temporary folders.
  policy: { bmc: new HostRules(ANY_HOST), image: new HostRules(ANY_HOST), caPaths: [tmpdir(), PROJECT_ROOT] },
};

export const redfish = createRedfishInterfaces(TEST_CONFIG);

export function redfishNode(fleet: Fleet, machine: VirtualMachine, overrides: Partial<NodeData> = {}): Node {
  return new Node({
    uuid: randomUUID(),
    driver: 'redfish',
    provision_state: 'manageable',
    created_at: new Date().toISOString(),
    driver_info: fleet.driverInfo(machine),
    power_interface: 'redfish',
    management_interface: 'redfish',
    boot_interface: 'redfish-virtual-media',
    inspect_interface: 'redfish',
    ...overrides,
  });
}

/** A task on `node` whose ports (what inspection hooks create, keep and delete) live in `ports`. */
export function taskFor(node: Node, ports: Port[] = []): InspectionTask {
  return {
    node,
    log: new Logger({ serviceName: 'test', logLevel: 'SILENT' }),
    ports: {
      list: async () => [...ports],
      create: async (p) => {
        if (ports.some((q) => q.address === p.address)) return false;
        ports.push(new Port({ uuid: randomUUID(), node_uuid: node.uuid, created_at: new Date().toISOString(), ...p }));
        return true;
      },
      save: async () => {},
      destroy: async (port) => void ports.splice(ports.indexOf(port), 1),
    },
  };
}

/** Run `fn`, expecting it to fail; returns the error and how long it took. */
export async function failure(fn: () => Promise<unknown>): Promise<{ error: Error; ms: number }> {
  const started = Date.now();
  try {
    await fn();
  } catch (error) {
    return { error: error as Error, ms: Date.now() - started };
  }
  throw new Error('expected a failure, but it succeeded');
}

/**
 * A virtual fleet for the test file, started before its tests and stopped after them, and
 * `setup()`, which adds a machine with a redfish node and a task pointing at it.
 */
export function fleetForFile(prefix: string) {
  let started: Fleet | undefined;
  beforeAll(async () => {
    started = await new Fleet({ prefix }).start();
  });
  afterAll(async () => {
    await started?.stop();
  });
  const fleet = (): Fleet => {
    if (started === undefined) throw new Error('the fleet starts in beforeAll: use it inside a test');
    return started;
  };
  return {
    fleet,
    setup() {
      const machine = fleet().add();
      const node = redfishNode(fleet(), machine);
      return { machine, node, task: taskFor(node) };
    },
  };
}
