/**
 * Redfish nodes on a local stack: the fleet the stack starts (as `npm start` does), `ironless fleet
 * create` run as an operator runs it, and `manage` through the existing verify flow against the
 * virtual BMCs — reading the power state from the BMC, and ending in enroll with a clear
 * last_error when the credentials are wrong or the BMC hangs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../lib/bundling';
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Json, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;
const children: ChildProcess[] = [];

beforeAll(async () => {
  stack = await startStack({
    fleet: { count: 2, prefix: 'stackvm' },
    // Short deadlines for the conductor's Redfish calls, so a hung BMC fails the verify in seconds.
    functionEnv: { REDFISH_CONNECTION_ATTEMPTS: '2', REDFISH_CONNECTION_RETRY_INTERVAL: '0', REDFISH_READ_TIMEOUT: '2' },
  });
  api = new ApiClient(stack.url);
}, 60_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await stack?.stop();
});

/** Poll until a node has left `verifying` (manage is over, either way). */
async function verified(node: string, timeoutMs = 30_000): Promise<Record<string, Json>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = (await api.get(`/v1/nodes/${node}`)).body as Record<string, Json>;
    if (body.provision_state !== 'verifying' && body.target_provision_state === null) return body;
    if (Date.now() > deadline) throw new Error(`node ${node} still verifying: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function createNode(name: string, driverInfo: Record<string, unknown>): Promise<string> {
  const reply = await api.request('POST', '/v1/nodes', { name, driver: 'redfish', driver_info: driverInfo });
  if (reply.status !== 201) throw new Error(`create ${name}: ${reply.status} ${reply.text}`);
  return reply.body.uuid as string;
}

describe('the fleet of the local stack', () => {
  it('is enrolled as redfish nodes once the API is up, and manage reads the power state from each BMC', async () => {
    const fleet = stack.fleet;
    if (!fleet) throw new Error('the stack started no fleet');
    const listed = await api.get('/v1/nodes?driver=redfish&fields=name,driver,provision_state');
    expect(listed.body.nodes.map((n: Json) => [n.name, n.driver, n.provision_state])).toEqual([
      ['stackvm-0', 'redfish', 'enroll'],
      ['stackvm-1', 'redfish', 'enroll'],
    ]);
    const node = (await api.get('/v1/nodes/stackvm-1')).body;
    expect(node).toMatchObject({
      power_interface: 'redfish',
      management_interface: 'redfish',
      boot_interface: 'redfish-virtual-media',
      inspect_interface: 'redfish',
      driver_info: { redfish_address: fleet.url, redfish_system_id: '/redfish/v1/Systems/stackvm-1', redfish_password: '******' },
    });

    fleet.machine('stackvm-1').reset('On');
    await api.provision('stackvm-0', 'manage');
    await api.provision('stackvm-1', 'manage');
    const off = await verified('stackvm-0');
    const on = await verified('stackvm-1');
    expect([off.provision_state, off.power_state, off.last_error]).toEqual(['manageable', 'power off', null]);
    expect([on.provision_state, on.power_state, on.last_error]).toEqual(['manageable', 'power on', null]);
  }, 60_000);

  it('fails manage with a clear last_error when the BMC refuses the credentials', async () => {
    const fleet = stack.fleet!;
    const machine = fleet.add();
    const uuid = await createNode('wrong-password', { ...fleet.driverInfo(machine), redfish_password: 'guess' });
    const started = Date.now();
    await api.provision(uuid, 'manage');
    const node = await verified(uuid);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(node.provision_state).toBe('enroll');
    expect(node.reservation).toBeNull();
    expect(node.last_error).toBe(
      `Failed to get power state for node ${uuid}. Error: Redfish exception occurred. Error: HTTP GET ${fleet.url}/redfish/v1/Systems/${machine.id} ` +
        `returned code 401. Base.1.8.GeneralError: The credentials given for /redfish/v1/Systems/${machine.id} are not valid. ` +
        `Extended information: [{'MessageId': 'Base.1.8.NoValidSession', 'Message': 'The credentials given for /redfish/v1/Systems/${machine.id} are not valid.', 'Severity': 'Critical', 'Resolution': 'None.'}]`,
    );
  }, 30_000);

  it('fails manage, instead of hanging, when the BMC never answers', async () => {
    const fleet = stack.fleet!;
    const machine = fleet.add();
    machine.setFaults({ down: 'hang' });
    const uuid = await createNode('hung-bmc', fleet.driverInfo(machine));
    await api.provision(uuid, 'manage');
    const node = await verified(uuid);
    expect(node.provision_state).toBe('enroll');
    expect(node.last_error).toBe(
      `Failed to get power state for node ${uuid}. Error: Redfish connection failed for node ${uuid}: ` +
        `Unable to connect to ${fleet.url}/redfish/v1/Systems/${machine.id}. Error: timed out after 2 s waiting for the BMC to answer`,
    );
  }, 30_000);
});

/** Run the CLI; resolves with its output once `ready` matches, or rejects when it exits first. */
function runCli(args: string[], ready: RegExp): { child: ChildProcess; output: () => string; started: Promise<RegExpExecArray> } {
  const child = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', '--import', 'tsx', join(PROJECT_ROOT, 'bin/ironless.ts'), ...args],
    {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let out = '';
  const started = new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in 30 s:\n${out}`)), 30_000);
    const check = () => {
      const match = ready.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      check();
    });
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`exited with ${code}:\n${out}`), { code, out }));
    });
  });
  return { child, output: () => out, started };
}

describe('ironless fleet create', () => {
  it('starts virtual machines, enrolls them as redfish nodes, serves their BMCs until Ctrl-C', async () => {
    const cli = runCli(
      ['fleet', 'create', '--count', '2', '--api', stack.url, '--prefix', 'cli'],
      /serve Redfish at (http:\/\/127\.0\.0\.1:\d+)/,
    );
    const [, bmc] = await cli.started;
    expect(cli.output()).toContain('cli-0');
    expect(cli.output()).toContain('cli-1');
    expect(cli.output()).toContain('No ports were created');
    expect(cli.output()).not.toContain('\u001b[');

    const nodes = (await api.get('/v1/nodes?driver=redfish&fields=name,driver_info')).body.nodes as Json[];
    const cliNodes = nodes.filter((n) => String(n.name).startsWith('cli-'));
    expect(cliNodes.map((n) => [n.name, n.driver_info.redfish_address, n.driver_info.redfish_system_id])).toEqual([
      ['cli-0', bmc, '/redfish/v1/Systems/cli-0'],
      ['cli-1', bmc, '/redfish/v1/Systems/cli-1'],
    ]);
    // The conductor reaches the CLI's BMCs.
    await api.provision('cli-0', 'manage');
    expect(await verified('cli-0')).toMatchObject({ provision_state: 'manageable', power_state: 'power off', last_error: null });

    // The same names for BMCs elsewhere: the existing nodes are pointed at the new BMCs (PATCH).
    const again = runCli(
      ['fleet', 'create', '--count', '1', '--api', stack.url, '--prefix', 'cli'],
      /serve Redfish at (http:\/\/127\.0\.0\.1:\d+)/,
    );
    const [, otherBmc] = await again.started;
    expect(otherBmc).not.toBe(bmc);
    const moved = (await api.get('/v1/nodes/cli-0?fields=driver_info')).body;
    expect(moved.driver_info.redfish_address).toBe(otherBmc);
    const againExited = new Promise<number | null>((resolve) => again.child.once('exit', resolve));
    again.child.kill('SIGINT');
    expect(await againExited).toBe(0);

    const exited = new Promise<number | null>((resolve) => cli.child.once('exit', resolve));
    cli.child.kill('SIGINT');
    expect(await exited).toBe(0);
    await expect(fetch(`${bmc}/redfish/v1`)).rejects.toThrow();
  }, 90_000);
});
