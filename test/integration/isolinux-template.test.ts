/**
 * Ironic's `[DEFAULT]isolinux_config_template` on the local stack: given as
 * `settings.isolinuxConfigTemplate`, the file is read when the stack starts, put in the
 * conductor's code, and rendered into the isolinux.cfg of every BIOS agent ISO the conductor
 * builds; the virtual machine's legacy firmware boots the agent with that configuration, and
 * cleaning completes through it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBootIso } from '../../local/fleet/agent/boot-media';
import type { LocalStack } from '../../local/stack';
import { BootIsoBucket } from './helpers/boot-iso-bucket';
import { type FleetStack, startFleetStack } from './helpers/fleet';
import { ApiClient } from './helpers/stack';

const TEMPLATE = [
  '# the operator’s own: a serial console and a short timeout',
  'serial 0 115200',
  'default agent',
  'timeout 30',
  'label agent',
  '  kernel {{ kernel }}',
  '  append initrd={{ ramdisk }} console=ttyS0,115200 {{ kernel_params }}',
  '',
].join('\n');

let dir: string;
let fleet: FleetStack;
let stack: LocalStack;
let api: ApiClient;
let isos: BootIsoBucket;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'isolinux-template-'));
  writeFileSync(join(dir, 'isolinux.cfg.template'), TEMPLATE);
  fleet = await startFleetStack({
    count: 1,
    prefix: 'itpl',
    image: Buffer.from('disk'),
    settings: { isolinuxConfigTemplate: join(dir, 'isolinux.cfg.template') },
  });
  stack = fleet.stack;
  api = new ApiClient(stack.url, '1.82');
  isos = new BootIsoBucket(stack);
}, 120_000);

afterAll(async () => {
  isos?.destroy();
  await fleet?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('cleans a BIOS-mode node through an ISO whose isolinux.cfg is the operator’s template, rendered', async () => {
  const machine = stack.fleet?.machine('itpl-0');
  if (machine === undefined || stack.fleet === undefined) throw new Error('no machine itpl-0');
  const uuid = (await api.get('/v1/nodes/itpl-0')).body.uuid as string;
  const patched = await api.request('PATCH', `/v1/nodes/${uuid}`, [
    { op: 'replace', path: '/driver_info', value: stack.fleet.kernelDriverInfo(machine) },
    { op: 'add', path: '/properties/capabilities', value: 'boot_mode:bios' },
  ]);
  expect(patched.status).toBe(200);
  const key = `${uuid}/deploy.iso`;
  const built = await isos.watch(key, async () => {
    await api.provision(uuid, 'manage');
    await api.settle(uuid, ['manageable'], 60_000);
    await api.provision(uuid, 'provide');
    expect(await api.settle(uuid, ['available', 'clean failed'], 150_000)).toMatchObject({
      provision_state: 'available',
      last_error: null,
    });
  });
  expect(built.length).toBeGreaterThan(0);
  for (const bytes of built) {
    const iso = readBootIso(bytes, 'Legacy');
    const cfg = iso.files.get('isolinux/isolinux.cfg')?.toString('utf8') ?? '';
    const params = /console=ttyS0,115200 (.*)$/.exec(cfg)?.[1] ?? '';
    expect(params).toMatch(/^nofb vga=normal ir_pub_id=[0-9a-f-]{36} ipa-agent-token=[A-Za-z0-9_-]{43} boot_method=vmedia$/);
    // The template as given, its variables rendered (and, as Jinja2 does, its last newline dropped).
    expect(cfg).toBe(
      TEMPLATE.replace('{{ kernel }}', '/vmlinuz')
        .replace('{{ ramdisk }}', '/initrd')
        .replace('{{ kernel_params }}', params)
        .replace(/\n$/, ''),
    );
    expect(iso.cmdline).toBe(`initrd=/initrd console=ttyS0,115200 ${params}`);
  }
  // The legacy firmware booted the agent from it.
  expect(machine.boots.filter((b) => b.device === 'Cd' && b.mode === 'Legacy').length).toBeGreaterThanOrEqual(1);
}, 300_000);
