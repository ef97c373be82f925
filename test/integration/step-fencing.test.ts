/**
 * On the local stack, with real Step Functions timeouts and a virtual BMC that keeps a log of the
 * requests it receives:
 *
 * - a step that outlives its Step Functions timeout (a slow BMC) sends the BMC nothing more once
 *   the failure path has started powering the node off;
 * - a slow BMC on one node does not fail another node's action in the same SQS batch: the
 *   invocation ends in time, and the message that ran out of time is retried and succeeds;
 * - the agent lookup is bounded, and no node view shows the conductor's internal tokens.
 */
import type { BmcRequest, VirtualMachine } from '../../local/fleet/machine';
import type { LocalStack } from '../../local/stack';
import { ApiClient, SHORT_STEP_LIMITS, faultOf, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;

/** BMC requests take this long (each is logged when it arrives). */
const SLOW_MS = 4_000;

beforeAll(async () => {
  stack = await startStack({
    fleet: { count: 1, prefix: 'sf' },
    settings: { ...SHORT_STEP_LIMITS, conductorTimeoutSeconds: 20, stepTimeoutSeconds: 10, lockTtlSeconds: 120 },
    // One try per request: the timings below are the step's, not the retries'.
    functionEnv: { REDFISH_CONNECTION_ATTEMPTS: '1', REDFISH_READ_TIMEOUT: '30' },
  });
  api = new ApiClient(stack.url, '1.87');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function availableRedfishNode(): Promise<{ uuid: string; machine: VirtualMachine }> {
  const fleet = stack.fleet!;
  const machine = fleet.add();
  const reply = await api.request('POST', '/v1/nodes', {
    driver: 'redfish',
    driver_info: fleet.driverInfo(machine),
    deploy_interface: 'fake',
    automated_clean: false,
    instance_info: { image_source: 'http://images.example/disk.img', image_checksum: 'abc' },
  });
  if (reply.status !== 201) throw new Error(`create: ${reply.status} ${reply.text}`);
  const uuid = reply.body.uuid as string;
  await api.provision(uuid, 'manage');
  await api.waitFor(uuid, 'manageable', 60_000);
  await api.provision(uuid, 'provide');
  await api.waitFor(uuid, 'available', 60_000);
  return { uuid, machine };
}

const after = (requests: readonly BmcRequest[], at: number) => requests.filter((r) => r.at > at);

describe('a step that outlives its timeout', () => {
  it('sends the BMC nothing once the failure path has started powering the node off', async () => {
    const { uuid, machine } = await availableRedfishNode();
    const power = await api.request('PUT', `/v1/nodes/${uuid}/states/power`, { target: 'power on' });
    expect(power.status).toBe(202);
    await waitPower(uuid, 'power on', 60_000);

    // A reboot step: off, wait, boot device, on, wait — far longer than its 10 s at 4 s a request.
    machine.setFaults({ slowMs: SLOW_MS });
    machine.requests.splice(0);
    await api.provision(uuid, 'active', { deploy_steps: [{ interface: 'power', step: 'reboot', priority: 95, args: {} }] });
    // While the execution runs, its tokens show masked, as the agent's token does.
    let running: Record<string, unknown> = {};
    for (let i = 0; i < 200; i++) {
      running = (await api.get(`/v1/nodes/${uuid}`)).body as Record<string, unknown>;
      if ((running.driver_internal_info as Record<string, unknown>)?.steps_owner !== undefined) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(running.driver_internal_info).toMatchObject({ steps_owner: '******' });
    const node = await api.settle(uuid, ['deploy failed', 'active'], 120_000);
    expect(node.provision_state).toBe('deploy failed');
    expect(node.last_error).toMatch(/Deploy step power\.reboot failed on node/);
    // Let anything still in flight arrive before reading the log.
    await new Promise((r) => setTimeout(r, 2 * SLOW_MS));

    const requests = [...machine.requests];
    const resets = requests.filter((r) => r.resetType !== undefined);
    // The failure path powers the node off: its ForceOff is the last reset the BMC received.
    const failurePathOff = resets[resets.length - 1]!;
    expect(failurePathOff.resetType).toBe('ForceOff');
    // The step's own first request came first; after the failure path began, no request of the step's.
    const stepActions = (r: BmcRequest) => r.method === 'PATCH' || r.resetType === 'On' || r.path.includes('VirtualMedia');
    expect(after(requests, failurePathOff.at - SLOW_MS).filter(stepActions)).toEqual([]);
    expect(resets.filter((r) => r.resetType === 'On')).toEqual([]);
  }, 240_000);
});

describe('a slow BMC in a batch', () => {
  it('does not take the others down with it: the invocation ends in time and the slow action is retried', async () => {
    const hung = await availableRedfishNode();
    const slow = await availableRedfishNode();
    const quick = await availableRedfishNode();
    hung.machine.setFaults({ down: 'hang' });
    // Its power on takes longer than one invocation (GET, PATCH boot device?, POST, polls at 4 s each).
    slow.machine.setFaults({ slowMs: SLOW_MS });

    stack.setEventSourcesEnabled(false);
    for (const node of [hung, slow, quick]) {
      const reply = await api.request('PUT', `/v1/nodes/${node.uuid}/states/power`, { target: 'power on', timeout: 3600 });
      expect(reply.status).toBe(202);
    }
    stack.setEventSourcesEnabled(true);

    const quickNode = await waitPower(quick.uuid, 'power on', 60_000);
    expect(quickNode.last_error).toBeNull();
    // The slow node's first delivery runs out of time, gives its lock back, and the next one finds
    // it powered on and records it.
    const slowNode = await waitPower(slow.uuid, 'power on', 180_000);
    expect(slowNode).toMatchObject({ power_state: 'power on', last_error: null, target_power_state: null });
    slow.machine.clearFaults();
    hung.machine.clearFaults();
  }, 300_000);
});

async function waitPower(uuid: string, state: string, timeoutMs: number): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const node = (await api.get(`/v1/nodes/${uuid}`)).body as Record<string, unknown>;
    if (node.power_state === state && node.target_power_state === null) return node;
    if (Date.now() > deadline) throw new Error(`node ${uuid}: ${JSON.stringify({ power: node.power_state, last_error: node.last_error })}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('the agent lookup', () => {
  it('is bounded by the number of distinct addresses', async () => {
    const macs = Array.from({ length: 40 }, (_, i) => `52:54:00:00:01:${i.toString(16).padStart(2, '0')}`);
    const tooMany = await api.get(`/v1/lookup?addresses=${macs.join(',')}`);
    expect(tooMany.status).toBe(400);
    expect(faultOf(tooMany).faultstring).toBe(
      'Too many addresses for a lookup: 40 distinct MAC addresses were given, at most 32 are accepted. Give node_uuid, or fewer addresses.',
    );
    // Repeats count once.
    const repeated = await api.get(`/v1/lookup?addresses=${Array(40).fill(macs[0]).join(',')}`);
    expect(repeated.status).toBe(404);
  });
});
