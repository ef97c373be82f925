/** The virtual agent's in-band steps and standby commands: write_image, erase, partition UUIDs, logs. */
import { createHash } from 'node:crypto';
import { readTarGz } from '../../helpers/tar';
import { VirtualAgent } from '../../../local/fleet/agent/agent';
import { defaultSpec } from '../../../local/fleet/fleet';
import { VirtualMachine } from '../../../local/fleet/machine';
import { AgentCommandClient, FakeIronic, ImageServer, waitFor } from './helpers/fake-ironic';

const NODE = { uuid: '5f0c1f4e-3a53-4c8f-9d43-6ad2b1b0e6a1', driver_internal_info: {} };
const IMAGE = Buffer.from('a whole-disk image of the virtual kind\n'.repeat(100));
const hash = (algo: string, data: Buffer = IMAGE) => createHash(algo).update(data).digest('hex');

let ironic: FakeIronic;
let images: ImageServer;
let agent: VirtualAgent;
let machine: VirtualMachine;
let client: AgentCommandClient;

beforeEach(async () => {
  ironic = await new FakeIronic(NODE.uuid).start();
  images = await new ImageServer().start();
  images.images.set('/images/disk.img', IMAGE);
  machine = new VirtualMachine(defaultSpec('steps', 0));
  agent = new VirtualAgent({ machine, apiUrl: ironic.url, heartbeatIntervalMs: 50, hardware: { stepDurationMs: 1 } });
  await agent.start();
  client = new AgentCommandClient(agent.callbackUrl);
});

afterEach(async () => {
  await agent.stop();
  await Promise.all([ironic.stop(), images.stop()]);
});

/** What Ironic 21.4's AgentDeploy.write_image sends as the in-band write_image step. */
function writeImageStep(imageInfo: Record<string, unknown>) {
  return {
    interface: 'deploy',
    step: 'write_image',
    args: {
      image_info: {
        id: 'disk.img',
        urls: [`${images.url}/images/disk.img`],
        disk_format: 'raw',
        stream_raw_images: true,
        node_uuid: NODE.uuid,
        ...imageInfo,
      },
      configdrive: null,
    },
  };
}

async function deployStep(step: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const started = await client.command('deploy.execute_deploy_step', { step, node: NODE, ports: [], ...extra });
  expect(started.status).toBe(200);
  return client.finished('execute_deploy_step');
}

describe('write_image', () => {
  it.each([
    ['the legacy md5 checksum', { checksum: hash('md5') }],
    ['os_hash sha256', { os_hash_algo: 'sha256', os_hash_value: hash('sha256') }],
    ['os_hash sha512 (preferred over a checksum)', { os_hash_algo: 'sha512', os_hash_value: hash('sha512'), checksum: 'ignored' }],
  ])('downloads the image, verifies %s and writes it to the disk', async (_what, sums) => {
    const step = writeImageStep(sums);
    const done = await deployStep(step, { deploy_version: agent.hardware.versions() });
    expect(done.command_status).toBe('SUCCEEDED');
    const result = done.command_result as { deploy_result: { result: string }; deploy_step: unknown };
    expect(result.deploy_step).toEqual(step);
    expect(result.deploy_result.result).toMatch(
      /^prepare_image: image \(disk\.img\) written to device \/dev\/sda root_uuid=0x[0-9a-f]{8}$/,
    );
    expect(machine.disk).toMatchObject({ device: '/dev/sda', imageId: 'disk.img', size: IMAGE.length, sha256: hash('sha256') });
    expect(machine.disk?.content?.equals(IMAGE)).toBe(true);
    const uuids = await client.command('standby.get_partition_uuids', {}, true);
    expect(uuids.body.command_result).toEqual({ 'root uuid': expect.stringMatching(/^0x/) });
  });

  it('partitions the disk for a partition image as IPA does, and installs GRUB only on its root partition', async () => {
    const step = writeImageStep({
      checksum: hash('md5'),
      image_type: 'partition',
      root_mb: 10240,
      swap_mb: 512,
      ephemeral_mb: 0,
      deploy_boot_mode: 'uefi',
      disk_label: 'gpt',
      boot_option: 'local',
    });
    const done = await deployStep(step);
    expect(done.command_status).toBe('SUCCEEDED');
    const message = (done.command_result as { deploy_result: { result: string } }).deploy_result.result;
    expect(message).toMatch(
      /^prepare_image: image \(disk\.img\) written to device \/dev\/sda root_uuid=\S+ efi_system_partition_uuid=\S+$/,
    );
    expect(machine.disk).toMatchObject({ partitionTable: 'gpt' });
    expect(machine.disk?.partitions?.map((p) => [p.number, p.role, p.device, p.sizeMb])).toEqual([
      [1, 'efi system partition', '/dev/sda1', 550],
      [2, 'swap', '/dev/sda2', 512],
      [3, 'root', '/dev/sda3', 10240],
    ]);
    const uuids = (await client.command('standby.get_partition_uuids', {}, true)).body.command_result as Record<string, unknown>;
    const root = machine.disk?.partitions?.[2]?.uuid;
    expect(uuids).toEqual({
      'root uuid': root,
      'efi system partition uuid': machine.disk?.partitions?.[0]?.uuid,
      partitions: { 'efi system partition': '/dev/sda1', swap: '/dev/sda2', root: '/dev/sda3' },
    });
    await client.command('image.install_bootloader', { root_uuid: 'not-a-partition', target_boot_mode: 'uefi' });
    expect(await client.finished('install_bootloader')).toMatchObject({
      command_status: 'FAILED',
      command_error: { type: 'CommandExecutionError' },
    });
    await client.command('image.install_bootloader', {
      root_uuid: root,
      efi_system_part_uuid: uuids['efi system partition uuid'],
      target_boot_mode: 'uefi',
    });
    expect((await client.finished('install_bootloader')).command_status).toBe('SUCCEEDED');
    expect(machine.disk?.bootloader).toEqual({ rootUuid: root, efiSystemPartUuid: uuids['efi system partition uuid'], bootMode: 'uefi' });
  });

  it('refuses a partition image without a root size', async () => {
    const done = await deployStep(writeImageStep({ checksum: hash('md5'), image_type: 'partition', root_mb: null }));
    expect(done).toMatchObject({ command_status: 'FAILED', command_error: { type: 'CommandExecutionError' } });
    expect(machine.disk).toBeUndefined();
  });

  it('reads a checksum given as a URL of a checksums file', async () => {
    images.images.set(
      '/images/SHA256SUMS',
      Buffer.from(`${hash('sha256', Buffer.from('other'))}  other.img\n${hash('sha256')}  disk.img\n`),
    );
    const done = await deployStep(writeImageStep({ os_hash_algo: 'sha256', os_hash_value: `${images.url}/images/SHA256SUMS` }));
    expect(done.command_status).toBe('SUCCEEDED');
  });

  it('fails with ImageChecksumError when the checksum does not match, writing nothing', async () => {
    const done = await deployStep(writeImageStep({ checksum: hash('md5', Buffer.from('something else')) }));
    expect(done.command_status).toBe('FAILED');
    expect(done.command_error).toMatchObject({ type: 'ImageChecksumError', code: 500, message: 'Error verifying image checksum' });
    expect(String((done.command_error as { details: string }).details)).toContain(`verification checksum: ${hash('md5')}`);
    expect(machine.disk).toBeUndefined();
  });

  it('fails with ImageDownloadError when no URL serves the image', async () => {
    const done = await deployStep(writeImageStep({ urls: [`${images.url}/images/missing.img`], checksum: hash('md5') }));
    expect(done.command_status).toBe('FAILED');
    expect(done.command_error).toMatchObject({ type: 'ImageDownloadError', message: 'Error downloading image' });
    expect(String((done.command_error as { details: string }).details)).toContain('Received status code 404');
  });

  it('is also standby.prepare_image and cache_image, with their own result messages', async () => {
    const info = { id: 'disk.img', urls: [`${images.url}/images/disk.img`], checksum: hash('md5') };
    await client.command('standby.prepare_image', { image_info: info });
    const prepared = await client.finished('prepare_image');
    expect((prepared.command_result as { result: string }).result).toMatch(/^prepare_image: image \(disk\.img\) written to device/);
    await client.command('standby.cache_image', { image_info: info, force: true });
    const cached = await client.finished('cache_image');
    expect((cached.command_result as { result: string }).result).toMatch(/^cache_image: image \(disk\.img\) cached to device/);
  });
});

describe('other in-band steps', () => {
  it('runs the burn-in deploy step a deploy template enables, and fails steps the agent does not have', async () => {
    const burnin = { interface: 'deploy', step: 'burnin_cpu', priority: 85, args: { duration_ms: 1 } };
    expect(await deployStep(burnin)).toMatchObject({
      command_status: 'SUCCEEDED',
      command_result: { deploy_result: null, deploy_step: burnin },
    });
    const unknown = await deployStep({ interface: 'deploy', step: 'fly', priority: 85 });
    expect(unknown).toMatchObject({
      command_status: 'FAILED',
      command_error: { type: 'HardwareManagerMethodNotFound', details: 'Could not find method: fly' },
    });
  });

  it('erases the disk metadata as a clean step', async () => {
    await deployStep(writeImageStep({ checksum: hash('md5') }));
    expect(machine.disk).toBeDefined();
    const step = { interface: 'deploy', step: 'erase_devices_metadata', priority: 99, abortable: true, reboot_requested: false };
    await client.command('clean.execute_clean_step', { step, node: NODE, ports: [], clean_version: agent.hardware.versions() });
    const done = await client.finished('execute_clean_step');
    expect(done).toMatchObject({ command_status: 'SUCCEEDED', command_result: { clean_result: null, clean_step: step } });
    expect(machine.disk).toBeUndefined();
  });

  it('refuses steps planned with other hardware manager versions (CLEAN_VERSION_MISMATCH)', async () => {
    const step = { interface: 'deploy', step: 'erase_devices_metadata', priority: 99 };
    await client.command('clean.execute_clean_step', { step, node: NODE, ports: [], clean_version: { generic_hardware_manager: '0.9' } });
    const done = await client.finished('execute_clean_step');
    expect(done.command_status).toBe('CLEAN_VERSION_MISMATCH');
    expect(done.command_error).toMatchObject({ type: 'VersionMismatch', code: 409 });
  });

  it('installs the bootloader on the written image, syncs, and collects its logs (a gzipped tar, base64, as IPA)', async () => {
    const install = { root_uuid: '0x12345678', efi_system_part_uuid: null, prep_boot_part_uuid: null, target_boot_mode: 'uefi' };
    await client.command('image.install_bootloader', install);
    expect(await client.finished('install_bootloader')).toMatchObject({ command_status: 'FAILED' }); // no image yet
    expect((await deployStep(writeImageStep({ checksum: hash('md5') }))).command_status).toBe('SUCCEEDED');
    await client.command('image.install_bootloader', install);
    expect((await client.finished('install_bootloader')).command_status).toBe('SUCCEEDED');
    expect(machine.disk?.bootloader).toEqual({ rootUuid: '0x12345678', efiSystemPartUuid: null, bootMode: 'uefi' });
    expect((await client.command('standby.sync', {}, true)).body).toMatchObject({ command_status: 'SUCCEEDED', command_result: null });
    const logs = await client.command('log.collect_system_logs', {}, true);
    const files = readTarGz(Buffer.from((logs.body.command_result as { system_logs: string }).system_logs, 'base64'));
    expect(Object.keys(files)).toEqual(['journal']);
    expect(files.journal).toContain(`looked up node ${NODE.uuid}`);
  });

  it('powers the machine off, and reboots it into the instance with run_image', async () => {
    machine.reset('On');
    await client.command('standby.run_image', {});
    await waitFor(() => machine.boots.length === 2, 'the reboot');
    expect(machine.boots.at(-1)?.device).toBe('Hdd');
    // The OS rebooted itself: the BMC was asked for nothing more.
    expect(machine.resets).toEqual(['On']);
    await client.command('standby.power_off', {});
    await waitFor(() => machine.powerState === 'Off', 'the power off');
  });
});
