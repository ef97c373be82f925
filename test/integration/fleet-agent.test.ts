/**
 * The virtual agent on the local stack's fleet (as `npm start` runs it): a machine that boots the
 * agent ISO runs an agent that talks to the stack's own API, looking its node up by MACs and the
 * UUID it was enrolled under; the fleet's control API shows it and takes its faults.
 */
import type { VirtualAgent } from '../../local/fleet/agent/agent';
import { AGENT_ISO_PATH } from '../../local/fleet/fleet';
import type { LocalStack } from '../../local/stack';
import { ApiClient, startStack } from './helpers/stack';

let stack: LocalStack;

beforeAll(async () => {
  stack = await startStack({ fleet: { count: 1, prefix: 'agentvm' } });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('boots an agent on the agent ISO that looks its node up at the local API, and stops it on power off', async () => {
  const fleet = stack.fleet;
  if (!fleet) throw new Error('the stack started no fleet');
  const machine = fleet.machine('agentvm-0');
  const node = (await new ApiClient(stack.url).get('/v1/nodes/agentvm-0')).body as { uuid: string };

  // What the redfish-virtual-media boot interface does to deploy: the agent ISO in the CD, boot from it.
  machine.insertMedia('Cd', `${fleet.url}${AGENT_ISO_PATH}`);
  machine.setBoot({ target: 'Cd', enabled: 'Once' });
  machine.reset('On');
  await waitFor(() => machine.runningGuest !== undefined, 'the agent to boot');
  const agent = machine.runningGuest as VirtualAgent;
  const requests: string[] = [];
  // The agent's lookups reach the stack's API (a node in enroll is not one to look up: 404, retried).
  const original = fetch;
  globalThis.fetch = (input, init) => {
    if (String(input).startsWith(`${stack.url}/v1/lookup`)) requests.push(String(input));
    return original(input, init);
  };
  try {
    await waitFor(() => requests.length > 0, 'a lookup at the local API');
  } finally {
    globalThis.fetch = original;
  }
  const query = new URL(requests[0] as string).searchParams;
  expect(query.get('addresses')).toBe(machine.spec.nics.map((n) => n.mac).join(','));
  expect(query.get('node_uuid')).toBe(node.uuid);
  expect(agent.state).toBe('looking-up');

  const shown = (await (await fetch(`${fleet.url}/fleet/v1/machines/agentvm-0`)).json()) as { agent: { state: string } };
  expect(shown.agent.state).toBe('looking-up');
  const crash = await fetch(`${fleet.url}/fleet/v1/machines/agentvm-0/agent-faults`, {
    method: 'PUT',
    body: JSON.stringify({ crash: true }),
  });
  expect(crash.status).toBe(200);
  await waitFor(() => agent.state === 'crashed', 'the crash');

  machine.reset('ForceOff');
  await waitFor(() => machine.runningGuest === undefined, 'the power off');
  expect(agent.state).toBe('stopped');
}, 60_000);
