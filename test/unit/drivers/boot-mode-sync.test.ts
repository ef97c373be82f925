/**
 * The boot mode sync boot interfaces run before a boot (Ironic's `boot_mode_utils.sync_boot_mode`
 * with `node_set_boot_mode` and `node_cache_boot_mode`), against a management interface that
 * records what it is asked and answers as a BMC would.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { InvalidParameterValue, RedfishError, UnsupportedDriverExtension } from '../../../functions/common/errors';
import type { ManagementInterface, Task } from '../../../functions/drivers/base';
import {
  cacheBootMode,
  configureSecureBootIfNeeded,
  deconfigureSecureBootIfNeeded,
  syncBootMode,
} from '../../../functions/drivers/boot-mode-sync';
import type { NodeData } from '../../../functions/objects/node';
import { makeNode } from '../helpers/builders';

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
const unsupported = (what: string) => new UnsupportedDriverExtension('redfish', what);

interface Bmc {
  /** The BMC's mode; null: it does not say; an Error: reading it throws that. */
  mode: string | null | Error;
  secureBoot?: boolean | Error;
  supported?: string[] | Error;
  /** What setting a mode throws (the mode is not changed then). */
  setError?: Error;
  /** What setting the secure boot state throws (the state is not changed then). */
  setSecureBootError?: Error;
}

function fakeManagement(bmc: Bmc) {
  const calls: string[] = [];
  const management = {
    name: 'fake-bmc',
    async validate() {
      calls.push('validate');
    },
    async getBootMode() {
      calls.push('get_boot_mode');
      if (bmc.mode instanceof Error) throw bmc.mode;
      return bmc.mode;
    },
    async getSupportedBootModes() {
      if (bmc.supported instanceof Error) throw bmc.supported;
      return bmc.supported ?? ['uefi', 'bios'];
    },
    async setBootMode(_task: Task, mode: string) {
      calls.push(`set_boot_mode ${mode}`);
      if (bmc.setError) throw bmc.setError;
      bmc.mode = mode;
    },
    async getSecureBootState() {
      if (bmc.secureBoot instanceof Error) throw bmc.secureBoot;
      if (bmc.secureBoot === undefined) throw unsupported('get_secure_boot_state');
      return bmc.secureBoot;
    },
    async setSecureBootState(_task: Task, state: boolean) {
      calls.push(`set_secure_boot_state ${String(state)}`);
      if (bmc.setSecureBootError) throw bmc.setSecureBootError;
      bmc.secureBoot = state;
    },
  } as unknown as ManagementInterface;
  return { management, calls };
}

function taskFor(overrides: Partial<NodeData> = {}) {
  const node = makeNode({ driver: 'redfish', provision_state: 'deploying', ...overrides });
  const saved: Partial<NodeData>[] = [];
  const task: Task = {
    node,
    log,
    persist: async () => {
      saved.push({ driver_internal_info: { ...node.driver_internal_info }, boot_mode: node.boot_mode, secure_boot: node.secure_boot });
    },
  };
  return { task, node, saved };
}

describe('syncBootMode', () => {
  it('records the BMC’s mode when the node asks for none, and sets nothing', async () => {
    const { task, node, saved } = taskFor();
    const { management, calls } = fakeManagement({ mode: 'bios' });
    await syncBootMode(task, management);
    expect(node.driver_internal_info.deploy_boot_mode).toBe('bios');
    expect(calls).toEqual(['validate', 'get_boot_mode']);
    expect(saved).toEqual([{ driver_internal_info: { deploy_boot_mode: 'bios' }, boot_mode: null, secure_boot: null }]);
  });

  it('records and sets the default (uefi) when neither the node nor the BMC says, and caches what the BMC then reports', async () => {
    const { task, node } = taskFor();
    const { management, calls } = fakeManagement({ mode: null, secureBoot: false });
    await syncBootMode(task, management);
    expect(node.driver_internal_info.deploy_boot_mode).toBe('uefi');
    expect(calls).toEqual(['validate', 'get_boot_mode', 'validate', 'set_boot_mode uefi', 'get_boot_mode']);
    expect(node.boot_mode).toBe('uefi');
    expect(node.secure_boot).toBe(false);
  });

  it('records the default and goes on when the driver can neither read nor set the mode', async () => {
    const { task, node } = taskFor({ boot_mode: 'bios' });
    const { management, calls } = fakeManagement({ mode: unsupported('get_boot_mode'), setError: unsupported('set_boot_mode') });
    await syncBootMode(task, management);
    expect(node.driver_internal_info.deploy_boot_mode).toBe('uefi');
    expect(calls).toEqual(['validate', 'get_boot_mode', 'validate', 'set_boot_mode uefi']);
    // Nothing was set: the cached field keeps what it had.
    expect(node.boot_mode).toBe('bios');
  });

  it('sets the BMC to the mode the node’s capabilities ask for when it is in another, and caches it on the node', async () => {
    const { task, node, saved } = taskFor({ properties: { capabilities: 'boot_mode:bios' }, boot_mode: 'uefi' });
    const bmc: Bmc = { mode: 'uefi', secureBoot: false };
    const { management, calls } = fakeManagement(bmc);
    await syncBootMode(task, management);
    expect(bmc.mode).toBe('bios');
    expect(calls).toEqual(['validate', 'get_boot_mode', 'validate', 'set_boot_mode bios', 'get_boot_mode']);
    expect(node.boot_mode).toBe('bios');
    expect(node.secure_boot).toBe(false);
    // The node's own request is not recorded in driver_internal_info.
    expect(node.driver_internal_info).not.toHaveProperty('deploy_boot_mode');
    expect(saved.at(-1)).toMatchObject({ boot_mode: 'bios', secure_boot: false });
  });

  it('takes instance_info’s mode (capabilities, then the deprecated deploy_boot_mode) over the recorded one', async () => {
    for (const instance_info of [
      { capabilities: { boot_mode: 'BIOS' } },
      { capabilities: '{"boot_mode": "bios"}' },
      { deploy_boot_mode: 'bios' },
    ]) {
      const { task } = taskFor({ instance_info, driver_internal_info: { deploy_boot_mode: 'uefi' } });
      const { management, calls } = fakeManagement({ mode: 'uefi' });
      await syncBootMode(task, management);
      expect(calls).toContain('set_boot_mode bios');
    }
  });

  it('asks UEFI for secure boot', async () => {
    const { task } = taskFor({ instance_info: { capabilities: { secure_boot: 'true' } } });
    const { management, calls } = fakeManagement({ mode: 'bios' });
    await syncBootMode(task, management);
    expect(calls).toContain('set_boot_mode uefi');
  });

  it('does nothing when the BMC is already in the requested mode', async () => {
    const { task, node, saved } = taskFor({ properties: { capabilities: 'boot_mode:uefi' } });
    const { management, calls } = fakeManagement({ mode: 'uefi' });
    await syncBootMode(task, management);
    expect(calls).toEqual(['validate', 'get_boot_mode']);
    expect(saved).toEqual([]);
    expect(node.driver_internal_info).not.toHaveProperty('deploy_boot_mode');
  });

  it('uses the mode an earlier sync recorded', async () => {
    const { task } = taskFor({ driver_internal_info: { deploy_boot_mode: 'bios' } });
    const { management, calls } = fakeManagement({ mode: 'uefi' });
    await syncBootMode(task, management);
    expect(calls).toContain('set_boot_mode bios');
  });

  it('sets the requested mode when the BMC does not say, going on if the driver cannot', async () => {
    const { task, node } = taskFor({ properties: { capabilities: 'boot_mode:bios' } });
    const { management, calls } = fakeManagement({ mode: null, setError: unsupported('set_boot_mode') });
    await syncBootMode(task, management);
    expect(calls).toEqual(['validate', 'get_boot_mode', 'validate', 'set_boot_mode bios']);
    expect(node.boot_mode).toBeNull();
  });

  it('fails with Ironic’s message when the modes differ and the driver cannot set one', async () => {
    const { task, node } = taskFor({ properties: { capabilities: 'boot_mode:bios' } });
    const { management } = fakeManagement({ mode: 'uefi', setError: unsupported('set_boot_mode') });
    const failure = syncBootMode(task, management);
    await expect(failure).rejects.toBeInstanceOf(UnsupportedDriverExtension);
    await expect(failure).rejects.toThrow(
      `Baremetal node ${node.uuid} boot mode is not set to boot mode bios: Driver redfish does not support set_boot_mode (disabled or not implemented).`,
    );
  });

  it('fails with Ironic’s message when the BMC refuses the mode as invalid', async () => {
    const { task, node } = taskFor({ properties: { capabilities: 'boot_mode:bios' } });
    const { management } = fakeManagement({ mode: 'uefi', setError: new InvalidParameterValue('Invalid boot mode bios specified.') });
    const failure = syncBootMode(task, management);
    await expect(failure).rejects.toBeInstanceOf(InvalidParameterValue);
    await expect(failure).rejects.toThrow(
      `Node ${node.uuid} boot mode is not set. Attempt to set bios boot mode on the baremetal node failed with error Invalid boot mode bios specified.`,
    );
  });

  it('refuses a mode the driver lists as unsupported, as node_set_boot_mode does', async () => {
    const { task, node } = taskFor({ properties: { capabilities: 'boot_mode:bios' } });
    const { management, calls } = fakeManagement({ mode: 'uefi', supported: ['uefi'] });
    await expect(syncBootMode(task, management)).rejects.toThrow(
      `Node ${node.uuid} boot mode is not set. Attempt to set bios boot mode on the baremetal node failed with error Unsupported boot mode bios specified for node ${node.uuid}. Supported boot modes are: uefi`,
    );
    expect(calls).not.toContain('set_boot_mode bios');
  });

  it('passes a BMC failure to set the mode on as it is', async () => {
    const { task } = taskFor({ properties: { capabilities: 'boot_mode:bios' } });
    const refused = new RedfishError('Setting boot mode to bios failed for node x. Error: HTTP 500');
    const { management } = fakeManagement({ mode: 'uefi', setError: refused });
    await expect(syncBootMode(task, management)).rejects.toBe(refused);
  });

  it('passes a failure to read the BMC’s mode on, other than an unsupported one', async () => {
    const { task } = taskFor({ properties: { capabilities: 'boot_mode:bios' } });
    const down = new RedfishError('Unable to connect to the BMC');
    const { management, calls } = fakeManagement({ mode: down });
    await expect(syncBootMode(task, management)).rejects.toBe(down);
    expect(calls).toEqual(['validate', 'get_boot_mode']);
  });

  it('refuses a requested mode the node’s capabilities forbid, before touching the BMC', async () => {
    const { task, node } = taskFor({ properties: { capabilities: 'boot_mode:uefi' }, instance_info: { deploy_boot_mode: 'bios' } });
    const { management, calls } = fakeManagement({ mode: 'uefi' });
    await expect(syncBootMode(task, management)).rejects.toThrow(
      `Node ${node.uuid} boot mode bios violates node properties/capabilities uefi`,
    );
    expect(calls).toEqual(['validate', 'get_boot_mode']);
  });

  it('sets nothing while adopting, as node_set_boot_mode', async () => {
    const { task } = taskFor({ provision_state: 'adopting', properties: { capabilities: 'boot_mode:bios' } });
    const { management, calls } = fakeManagement({ mode: 'uefi' });
    await syncBootMode(task, management);
    expect(calls).toEqual(['validate', 'get_boot_mode', 'get_boot_mode']);
  });
});

describe('cacheBootMode', () => {
  it('stores null for what the driver cannot read', async () => {
    const { task, node, saved } = taskFor({ boot_mode: 'bios', secure_boot: true });
    const { management } = fakeManagement({ mode: unsupported('get_boot_mode') });
    await cacheBootMode(task, management);
    expect([node.boot_mode, node.secure_boot]).toEqual([null, null]);
    expect(saved).toHaveLength(1);
  });

  it('writes nothing when the node already shows what the BMC reports', async () => {
    const { task, saved } = taskFor({ boot_mode: 'uefi', secure_boot: true });
    const { management } = fakeManagement({ mode: 'uefi', secureBoot: true });
    await cacheBootMode(task, management);
    expect(saved).toEqual([]);
  });

  it('leaves both fields as they are when a read fails unexpectedly', async () => {
    const { task, node, saved } = taskFor({ boot_mode: 'bios', secure_boot: true });
    const { management } = fakeManagement({ mode: 'uefi', secureBoot: new RedfishError('HTTP 500') });
    await cacheBootMode(task, management);
    expect([node.boot_mode, node.secure_boot]).toEqual(['bios', true]);
    expect(saved).toEqual([]);
  });
});

describe('secure boot for the instance', () => {
  const secure = { instance_info: { capabilities: { secure_boot: 'true' } } };

  it('is turned on as the instance is prepared and off as it is cleaned up, the node showing the state', async () => {
    const { task, node } = taskFor({ ...secure, boot_mode: 'uefi', secure_boot: false });
    const bmc: Bmc = { mode: 'uefi', secureBoot: false };
    const { management, calls } = fakeManagement(bmc);
    await configureSecureBootIfNeeded(task, management);
    expect(calls).toEqual(['set_secure_boot_state true', 'get_boot_mode']);
    expect(node.secure_boot).toBe(true);
    await deconfigureSecureBootIfNeeded(task, management);
    expect(bmc.secureBoot).toBe(false);
    expect(node.secure_boot).toBe(false);
  });

  it('is left alone when the instance does not ask for it', async () => {
    const { task } = taskFor({ instance_info: { capabilities: { secure_boot: 'false' } } });
    const { management, calls } = fakeManagement({ mode: 'uefi', secureBoot: false });
    await configureSecureBootIfNeeded(task, management);
    await deconfigureSecureBootIfNeeded(task, management);
    expect(calls).toEqual([]);
  });

  it('goes on when the management interface cannot set it, and fails on any other error', async () => {
    const { task } = taskFor(secure);
    const cannot = fakeManagement({ mode: 'uefi', setSecureBootError: unsupported('set_secure_boot_state') });
    await expect(configureSecureBootIfNeeded(task, cannot.management)).resolves.toBeUndefined();
    await expect(deconfigureSecureBootIfNeeded(task, cannot.management)).resolves.toBeUndefined();
    const failing = fakeManagement({ mode: 'uefi', setSecureBootError: new RedfishError('HTTP 500') });
    await expect(configureSecureBootIfNeeded(task, failing.management)).rejects.toThrow('HTTP 500');
    await expect(deconfigureSecureBootIfNeeded(task, failing.management)).rejects.toThrow('HTTP 500');
  });
});
