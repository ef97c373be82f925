/**
 * Issue 6's scenario typed as an operator types it, with the real `openstack baremetal` client: a
 * redfish node on a virtual machine of the local stack's fleet is cleaned through the virtual
 * agent, deployed from an image URL with a deploy template that enables an in-band step and a
 * config drive given as JSON, and undeployed back to available.
 */
import type { LocalStack } from '../../local/stack';
import { type FleetStack, startFleetStack } from '../integration/helpers/fleet';
import { baremetalClient } from './helpers/openstack';

const IMAGE = Buffer.from('a whole-disk image for the client\n'.repeat(300));
let fleet: FleetStack;
let stack: LocalStack;
const baremetal = baremetalClient(() => stack.url, { timeoutMs: 400_000 });

beforeAll(async () => {
  fleet = await startFleetStack({ count: 1, prefix: 'cli', image: IMAGE });
  stack = fleet.stack;
}, 120_000);

afterAll(async () => {
  await fleet?.stop();
});

it('cleans, deploys with a template-enabled in-band step and a JSON config drive, and undeploys', async () => {
  expect(await baremetal('node', 'show', 'cli-0', '-f', 'value', '-c', 'driver')).toBe('redfish');
  await baremetal('node', 'manage', 'cli-0', '--wait', '120');
  await baremetal('node', 'provide', 'cli-0', '--wait', '300');
  expect(await baremetal('node', 'show', 'cli-0', '-f', 'value', '-c', 'provision_state')).toBe('available');

  const steps = JSON.stringify([{ interface: 'deploy', step: 'burnin_cpu', priority: 90, args: {} }]);
  await baremetal('deploy', 'template', 'create', 'CUSTOM_BURNIN', '--steps', steps);
  await baremetal(
    'node',
    'set',
    'cli-0',
    '--instance-info',
    `image_source=${fleet.image.image_source}`,
    '--instance-info',
    `image_checksum=${fleet.image.image_checksum}`,
    '--instance-info',
    'traits=["CUSTOM_BURNIN"]',
  );
  const configdrive = JSON.stringify({ meta_data: { hostname: 'cli-host' }, user_data: '#cloud-config\n' });
  await baremetal('node', 'deploy', 'cli-0', '--config-drive', configdrive, '--wait', '300');
  const shown = JSON.parse(await baremetal('node', 'show', 'cli-0', '-f', 'json')) as Record<string, unknown>;
  expect(shown).toMatchObject({ provision_state: 'active', last_error: null, power_state: 'power on' });
  expect((shown.instance_info as Record<string, unknown>).configdrive).toBe('******');

  const disk = stack.fleet?.machine('cli-0').disk;
  expect(disk).toMatchObject({ imageId: 'disk.img', size: IMAGE.length });
  expect(JSON.parse(disk?.configdrive?.files['openstack/latest/meta_data.json'] ?? '{}')).toMatchObject({
    hostname: 'cli-host',
    uuid: shown.uuid,
    name: 'cli-0',
  });
  const history = (await (
    await fetch(`${stack.url}/v1/nodes/cli-0/history?detail=true`, { headers: { 'X-OpenStack-Ironic-API-Version': '1.82' } })
  ).json()) as {
    history: { event: string; event_type: string }[];
  };
  expect(history.history.filter((e) => e.event_type === 'deploying').map((e) => e.event.split(' (')[0])).toEqual([
    'Deploy step deploy.deploy',
    'Deploy step deploy.burnin_cpu',
    'Deploy step deploy.write_image',
    'Deploy step deploy.prepare_instance_boot',
    'Deploy step deploy.tear_down_agent',
    'Deploy step deploy.switch_to_tenant_network',
    'Deploy step deploy.boot_instance',
  ]);

  await baremetal('node', 'undeploy', 'cli-0', '--wait', '300');
  expect(await baremetal('node', 'show', 'cli-0', '-f', 'value', '-c', 'provision_state')).toBe('available');
  expect(stack.fleet?.machine('cli-0').disk).toBeUndefined();
}, 900_000);
