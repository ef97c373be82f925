/**
 * In-band inspection as an operator types it, with the real `openstack baremetal` client: a
 * redfish node of the fleet switched to the agent inspect interface, validated, inspected with
 * `--wait` (the virtual agent posts its inventory), its properties and ports shown, and an
 * inspection waiting for a silent ramdisk aborted.
 *
 * NOTE: `openstack baremetal node inventory save` arrived in python-ironicclient 5.1; Debian's 5.0
 * does not have it, so GET /v1/nodes/{node}/inventory is covered by the integration suite.
 */
import type { LocalStack } from '../../local/stack';
import { startStack } from '../integration/helpers/stack';
import { baremetalClient } from './helpers/openstack';

let stack: LocalStack;
const baremetal = baremetalClient(() => stack.url, { timeoutMs: 300_000 });

beforeAll(async () => {
  stack = await startStack({
    fleet: { count: 2, prefix: 'cli-insp', inspection: true, inspectionRetryMs: 500 },
    // Beyond Ironic's default hooks, those that set memory_mb, cpus, local_gb and the boot mode.
    settings: { inspectorHooks: '$default_hooks,memory,cpus,root-device,boot-mode' },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

it('inspects a node in band with --wait, then shows what was found', async () => {
  await baremetal('node', 'set', 'cli-insp-0', '--inspect-interface', 'agent');
  await baremetal('node', 'manage', 'cli-insp-0', '--wait', '120');
  const validation = JSON.parse(await baremetal('node', 'validate', 'cli-insp-0', '-f', 'json')) as {
    Interface: string;
    Result: boolean;
  }[];
  expect(validation.find((v) => v.Interface === 'inspect')).toMatchObject({ Result: true });

  await baremetal('node', 'inspect', 'cli-insp-0', '--wait', '180');
  const shown = JSON.parse(await baremetal('node', 'show', 'cli-insp-0', '-f', 'json')) as Record<string, unknown>;
  expect(shown).toMatchObject({ provision_state: 'manageable', last_error: null, inspect_interface: 'agent', power_state: 'power off' });
  expect(shown.properties).toMatchObject({ cpu_arch: 'x86_64', memory_mb: 16384, cpus: 8, local_gb: 99, capabilities: 'boot_mode:uefi' });
  const addresses = (await baremetal('port', 'list', '--node', 'cli-insp-0', '-f', 'value', '-c', 'Address')).split('\n').sort();
  expect(addresses).toEqual(
    stack
      .fleet!.machine('cli-insp-0')
      .spec.nics.map((n) => n.mac)
      .sort(),
  );
}, 400_000);

it('aborts an inspection whose ramdisk never answers', async () => {
  stack.fleet!.machine('cli-insp-1').setAgentFaults({ crash: true });
  await baremetal('node', 'set', 'cli-insp-1', '--inspect-interface', 'agent');
  await baremetal('node', 'manage', 'cli-insp-1', '--wait', '120');
  await baremetal('node', 'inspect', 'cli-insp-1');
  const deadline = Date.now() + 60_000;
  for (;;) {
    const node = JSON.parse(await baremetal('node', 'show', 'cli-insp-1', '-f', 'json', '-c', 'provision_state', '-c', 'reservation')) as {
      provision_state: string;
      reservation: string | null;
    };
    if (node.provision_state === 'inspect wait' && node.reservation === null) break;
    if (Date.now() > deadline) throw new Error(`never waited unlocked in inspect wait: ${JSON.stringify(node)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await baremetal('node', 'abort', 'cli-insp-1');
  const failed = JSON.parse(await baremetal('node', 'show', 'cli-insp-1', '-f', 'json')) as Record<string, unknown>;
  expect(failed).toMatchObject({ provision_state: 'inspect failed', last_error: 'Inspection was aborted by request.' });
}, 400_000);
