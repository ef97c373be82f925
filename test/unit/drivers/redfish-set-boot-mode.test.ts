/**
 * Ironic master's redfish set_boot_mode over a stub BMC: what the PATCH carries (only the mode, or
 * the whole override for the vendors that want it), a BMC that reports no mode trusted without a
 * reboot, `boot_mode_config_timeout` 0 rebooting without waiting, and the wait ending before the
 * invocation's deadline with master's timeout error.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { UnsupportedDriverExtension } from '../../../functions/common/errors';
import type { PowerInterface, Task } from '../../../functions/drivers/base';
import { guardActions } from '../../../functions/drivers/guard';
import { RedfishRequestError, type RedfishClient, type Resource } from '../../../functions/drivers/redfish/client';
import type { RedfishConfig } from '../../../functions/drivers/redfish/config';
import { requiresFullBootRequest, setRedfishBootMode } from '../../../functions/drivers/redfish/set-boot-mode';
import { RedfishSystem } from '../../../functions/drivers/redfish/system';
import { makeNode } from '../helpers/builders';

const S = '/redfish/v1/Systems/1';

/** A BMC whose boot override is `boot`; `applies` says whether a PATCHed mode shows up in later reads. */
function setup(boot: Resource, opts: { applies?: boolean; refuse?: boolean; vendor?: string } = {}) {
  const patches: unknown[] = [];
  let doc: Resource = { Boot: { ...boot }, PowerState: 'Off' };
  const client = {
    async get() {
      return structuredClone(doc);
    },
    async patch(_path: string, body: { Boot: Resource }) {
      if (opts.refuse) throw new RedfishRequestError('HTTP PATCH returned code 400.', 'http', 'PATCH', S, false, 400);
      patches.push(body);
      if (opts.applies !== false) doc = { ...doc, Boot: { ...(doc.Boot as Resource), ...body.Boot } };
    },
  } as unknown as RedfishClient;
  const system = new RedfishSystem(client, S, structuredClone(doc));
  const power = {
    calls: [] as string[],
    async getPowerState() {
      return 'power off';
    },
    async reboot() {
      this.calls.push('reboot');
    },
    async setPowerState(_task: Task, state: string) {
      this.calls.push(state);
    },
  };
  const node = makeNode({ properties: opts.vendor ? { vendor: opts.vendor } : {} });
  const task = { node, log: new Logger({ serviceName: 'test', logLevel: 'SILENT' }) } as unknown as Task;
  return { system, patches, power, task, node };
}

const config = (over: Partial<RedfishConfig> = {}) =>
  ({ bootModeConfigTimeoutSeconds: 1, bootModeConfigIntervalMs: 20, ...over }) as RedfishConfig;

describe('requiresFullBootRequest', () => {
  it.each([
    ['American Megatrends International, LLC', true],
    ['AMI', true],
    ['ASRockRack', true],
    ['redfish_compatible', true],
    ['Dell Inc.', false],
    ['Supermicro', false],
  ])('vendor %s → %s', (vendor, expected) => {
    expect(requiresFullBootRequest(setup({}, { vendor }).task)).toBe(expected);
  });

  it('no vendor: no', () => {
    expect(requiresFullBootRequest(setup({}).task)).toBe(false);
  });
});

describe('setRedfishBootMode', () => {
  it('PATCHes only the mode, and does not reboot when the BMC reports it', async () => {
    const { system, patches, power, task } = setup({ BootSourceOverrideMode: 'UEFI', BootSourceOverrideTarget: 'Cd' });
    await setRedfishBootMode(task, system, 'bios', 'Legacy', { power: power as unknown as PowerInterface, config: config() });
    expect(patches).toEqual([{ Boot: { BootSourceOverrideMode: 'Legacy' } }]);
    expect(power.calls).toEqual([]);
  });

  it('sends the whole override to AMI-based BMCs (Once and Pxe when they report none)', async () => {
    const { system, patches, power, task } = setup({ BootSourceOverrideMode: 'UEFI' }, { vendor: 'AMI' });
    await setRedfishBootMode(task, system, 'bios', 'Legacy', { power: power as unknown as PowerInterface, config: config() });
    expect(patches).toEqual([
      { Boot: { BootSourceOverrideTarget: 'Pxe', BootSourceOverrideEnabled: 'Once', BootSourceOverrideMode: 'Legacy' } },
    ]);
  });

  it('trusts a BMC that reports no mode and accepts the PATCH (no reboot), and calls its refusal unsupported', async () => {
    const accepted = setup({}, { applies: false });
    await setRedfishBootMode(accepted.task, accepted.system, 'bios', 'Legacy', {
      power: accepted.power as unknown as PowerInterface,
      config: config(),
    });
    expect(accepted.power.calls).toEqual([]);
    const refused = setup({}, { refuse: true });
    await expect(
      setRedfishBootMode(refused.task, refused.system, 'bios', 'Legacy', {
        power: refused.power as unknown as PowerInterface,
        config: config(),
      }),
    ).rejects.toBeInstanceOf(UnsupportedDriverExtension);
  });

  it('boot_mode_config_timeout 0: reboots and puts the power back without waiting', async () => {
    const { system, power, task } = setup({ BootSourceOverrideMode: 'UEFI' }, { applies: false });
    await setRedfishBootMode(task, system, 'bios', 'Legacy', {
      power: power as unknown as PowerInterface,
      config: config({ bootModeConfigTimeoutSeconds: 0 }),
    });
    // The stub reports power off all along: nothing to put back.
    expect(power.calls).toEqual(['reboot']);
  });

  it('ends the wait before the invocation’s deadline, with master’s timeout error', async () => {
    const { system, power, task, node } = setup({ BootSourceOverrideMode: 'UEFI' }, { applies: false });
    // 10.5 s left: the wait keeps 10 s for putting the power back, so it ends after about 0.5 s, not 60 s.
    const deadline = Date.now() + 10_500;
    guardActions(node, { check: async () => {}, remainingMs: () => deadline - Date.now() });
    const started = Date.now();
    await expect(
      setRedfishBootMode(task, system, 'bios', 'Legacy', {
        power: power as unknown as PowerInterface,
        config: config({ bootModeConfigTimeoutSeconds: 60 }),
      }),
    ).rejects.toThrow(
      `Redfish exception occurred. Error: Timeout reached while waiting for boot mode of node ${node.uuid} to become Legacy, current is UEFI`,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(power.calls).toEqual(['reboot']);
  });
});
