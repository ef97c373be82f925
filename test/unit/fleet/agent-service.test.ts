/** The virtual agent's `service` extension, as IPA's: get_service_steps and execute_service_step. */
import { VirtualAgent } from '../../../local/fleet/agent/agent';
import { defaultSpec } from '../../../local/fleet/fleet';
import { VirtualMachine } from '../../../local/fleet/machine';
import { AgentCommandClient, FakeIronic } from './helpers/fake-ironic';

const NODE = { uuid: '0b7f3c1e-8d6a-4f55-9a51-2f4f1d1c9e21', driver_internal_info: {} };

let ironic: FakeIronic;
let agent: VirtualAgent;
let machine: VirtualMachine;
let client: AgentCommandClient;

beforeEach(async () => {
  ironic = await new FakeIronic(NODE.uuid).start();
  machine = new VirtualMachine(defaultSpec('service', 0));
  agent = new VirtualAgent({ machine, apiUrl: ironic.url, heartbeatIntervalMs: 50, hardware: { stepDurationMs: 1 } });
  await agent.start();
  client = new AgentCommandClient(agent.callbackUrl);
});

afterEach(async () => {
  await agent.stop();
  await ironic.stop();
});

it('lists service steps by hardware manager, none that would destroy the instance’s disk', async () => {
  const reply = await client.command('service.get_service_steps', { node: NODE, ports: [] }, true);
  expect(reply.status).toBe(200);
  const result = reply.body.command_result as {
    service_steps: Record<string, { step: string; priority: number }[]>;
    hardware_manager_version: unknown;
  };
  expect(result.hardware_manager_version).toEqual(agent.hardware.versions());
  const names = Object.values(result.service_steps).flatMap((steps) => steps.map((s) => s.step));
  expect(names).toEqual(expect.arrayContaining(['burnin_cpu', 'burnin_memory', 'create_configuration', 'delete_configuration']));
  expect(names).not.toContain('burnin_disk');
  expect(names).not.toContain('erase_devices');
});

it('runs a service step and answers with service_result and service_step', async () => {
  const step = { interface: 'deploy', step: 'burnin_cpu', priority: 0, args: { duration_ms: 5 } };
  await client.command('service.execute_service_step', { step, node: NODE, ports: [], service_version: agent.hardware.versions() });
  const done = await client.finished('execute_service_step');
  expect(done).toMatchObject({ command_status: 'SUCCEEDED', command_result: { service_result: null, service_step: step } });
});

it('reports a failed service step as a ServicingError', async () => {
  machine.agentFaults = { failStep: 'burnin_memory' };
  const step = { interface: 'deploy', step: 'burnin_memory', priority: 0 };
  await client.command('service.execute_service_step', { step, node: NODE, ports: [] });
  const done = await client.finished('execute_service_step');
  expect(done.command_status).toBe('FAILED');
  expect(done.command_error).toMatchObject({ type: 'ServicingError', message: 'Service step failed' });
});
