/**
 * The `direct` interface's prepare_instance_boot, as Ironic's with configure_local_boot: the
 * partition UUIDs come from the agent, and the agent installs a bootloader for a partition image
 * (on its root partition, with the EFI system partition in UEFI mode) and for a whole-disk image
 * booting in UEFI mode, but not for a whole-disk image in BIOS mode; a failed installation fails
 * the deploy with Ironic's message. Also the partition image's instance_info (Ironic's
 * parse_instance_info) and image_info.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { loadAgentConfig } from '../../../functions/common/config';
import { AgentClient } from '../../../functions/drivers/agent-client';
import { createDirectDeploy } from '../../../functions/drivers/agent/deploy';
import { imageInfo, prepareInstanceInfo } from '../../../functions/drivers/agent/image-source';
import { setAgentClient } from '../../../functions/drivers/agent/inband';
import type { Driver, StepDefinition, Task } from '../../../functions/drivers/base';
import { makeNode } from '../helpers/builders';
import { FakeIpa } from '../helpers/fake-ipa';

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
let ipa: FakeIpa;

beforeEach(async () => {
  ipa = await new FakeIpa().start();
  setAgentClient(new AgentClient({ commandTimeoutMs: 2000, attempts: 1, retryIntervalMs: 1 }));
});
afterEach(async () => {
  setAgentClient(undefined);
  await ipa.stop();
});

function setup(calls: string[]) {
  const driver = {
    boot: {
      async prepareInstance() {
        calls.push('boot:prepare_instance');
      },
    },
  } as unknown as Driver;
  const deploy = createDirectDeploy(
    () => driver,
    () => ({ ...loadAgentConfig({}), commandWaitIntervalSeconds: 0, commandWaitAttempts: 3 }),
    async () => undefined,
  );
  return deploy.deploySteps!.find((s) => s.step === 'prepare_instance_boot') as StepDefinition;
}

function task(overrides: Parameters<typeof makeNode>[0] = {}, internal: Record<string, unknown> = {}): Task {
  const node = makeNode({
    provision_state: 'deploying',
    ...overrides,
    driver_internal_info: { agent_url: ipa.url, agent_secret_token: ipa.token, ...internal },
  });
  return { node, log };
}

const sent = () => ipa.requests.filter((r) => r.method === 'POST').map((r) => r.name);
const bootloaderParams = () => ipa.requests.find((r) => r.name === 'image.install_bootloader')?.params;

describe('prepare_instance_boot', () => {
  it('installs the bootloader of a partition image on its root partition with the EFI system partition', async () => {
    ipa.partitionUuids = { 'root uuid': 'root-1', 'efi system partition uuid': 'efi-1' };
    const calls: string[] = [];
    const t = task({}, { is_whole_disk_image: false });
    await setup(calls).execute(t, {});
    expect(sent()).toEqual(['standby.get_partition_uuids', 'image.install_bootloader']);
    expect(bootloaderParams()).toEqual({
      root_uuid: 'root-1',
      efi_system_part_uuid: 'efi-1',
      prep_boot_part_uuid: null,
      target_boot_mode: 'uefi',
    });
    expect(t.node.driver_internal_info.root_uuid_or_disk_id).toBe('root-1');
    expect(calls).toEqual(['boot:prepare_instance']);
  });

  it('installs the boot entry of a whole-disk image in UEFI mode, without an EFI partition UUID', async () => {
    ipa.partitionUuids = { 'root uuid': '0xdeadbeef', 'efi system partition uuid': 'efi-x' };
    const t = task({}, { is_whole_disk_image: true });
    await setup([]).execute(t, {});
    expect(bootloaderParams()).toMatchObject({ root_uuid: '0xdeadbeef', efi_system_part_uuid: null, target_boot_mode: 'uefi' });
  });

  it('installs nothing for a whole-disk image in BIOS mode', async () => {
    ipa.partitionUuids = { 'root uuid': '0xdeadbeef' };
    const calls: string[] = [];
    await setup(calls).execute(task({ properties: { capabilities: 'boot_mode:bios' } }, { is_whole_disk_image: true }), {});
    expect(sent()).toEqual(['standby.get_partition_uuids']);
    expect(calls).toEqual(['boot:prepare_instance']);
  });

  it("fails the deploy with Ironic's message when the bootloader cannot be installed", async () => {
    ipa.partitionUuids = { 'root uuid': 'root-1' };
    ipa.bootloaderError = { type: 'CommandExecutionError', details: 'grub-install failed' };
    const calls: string[] = [];
    const t = task({}, { is_whole_disk_image: false });
    await expect(setup(calls).execute(t, {})).rejects.toThrow(
      `Failed to install a bootloader when deploying node ${t.node.uuid}: grub-install failed`,
    );
    expect(calls).toEqual([]);
  });
});

describe('partition image instance_info', () => {
  const partition = (info: Record<string, unknown>) =>
    makeNode({ instance_info: { image_source: 'http://images.example/root.img', image_type: 'partition', ...info } });

  it('works out the layout as Ironic parse_instance_info, and sends it in image_info', () => {
    const node = partition({ root_gb: 10, swap_mb: '512', ephemeral_gb: 1 });
    prepareInstanceInfo(node);
    expect(node.instance_info).toMatchObject({
      image_type: 'partition',
      root_mb: 10240,
      swap_mb: 512,
      ephemeral_mb: 1024,
      ephemeral_format: 'ext4',
      preserve_ephemeral: false,
    });
    expect(imageInfo(node, 'http://images.example/root.img')).toMatchObject({
      image_type: 'partition',
      root_mb: 10240,
      deploy_boot_mode: 'uefi',
      boot_option: 'local',
      disk_label: 'gpt',
    });
  });

  it("refuses a partition image without root_gb, or with a size that is not a whole number, in Ironic's words", () => {
    expect(() => prepareInstanceInfo(partition({}))).toThrow(
      "Some parameters were missing in node's instance_info. Missing are: ['root_gb']",
    );
    expect(() => prepareInstanceInfo(partition({ root_gb: 10, swap_mb: 'lots' }))).toThrow(
      'Invalid parameter swap_mb: lots is not an integer value.',
    );
  });

  it('records a whole-disk image as such and leaves its layout alone', () => {
    const node = makeNode({ instance_info: { image_source: 'http://images.example/disk.img' } });
    prepareInstanceInfo(node);
    expect(node.instance_info).toEqual({ image_source: 'http://images.example/disk.img', image_type: 'whole-disk' });
  });
});
