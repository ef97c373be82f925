/**
 * Ironic master's redfish set_secure_boot_state and `_wait_for_secure_boot` over a stub BMC: a state
 * the BMC reports at once needs no reboot; one it applies at the next boot gets the node rebooted,
 * waited for and put back in its power state; a read answered with a 5xx counts as not read; one
 * never applied ends in master's timeout error; `boot_mode_config_timeout` 0 reboots without waiting.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { PowerInterface, Task } from '../../../functions/drivers/base';
import { RedfishRequestError, type RedfishClient, type Resource } from '../../../functions/drivers/redfish/client';
import type { RedfishConfig } from '../../../functions/drivers/redfish/config';
import { setSecureBootState } from '../../../functions/drivers/redfish/management';
import { RedfishSystem } from '../../../functions/drivers/redfish/system';
import { makeNode } from '../helpers/builders';

const S = '/redfish/v1/Systems/1';
const SB = `${S}/SecureBoot`;

/**
 * A BMC whose SecureBoot PATCH is reported at once, at the next boot (`apply: 'reboot'`) or never;
 * `serverErrors` SecureBoot reads after the PATCH answer 500. Power starts as `power`.
 */
function setup(opts: { apply?: 'now' | 'reboot' | 'never'; serverErrors?: number; readError?: number; power?: string } = {}) {
  let enabled = false;
  let pending: boolean | undefined;
  let patched = false;
  let serverErrors = opts.serverErrors ?? 0;
  const client = {
    async get(path: string) {
      if (path !== SB) return { Boot: { BootSourceOverrideMode: 'UEFI' }, SecureBoot: { '@odata.id': SB } };
      if (patched && opts.readError !== undefined)
        throw new RedfishRequestError(`HTTP GET ${SB} returned code ${opts.readError}.`, 'http', 'GET', SB, false, opts.readError);
      if (patched && serverErrors > 0) {
        serverErrors -= 1;
        throw new RedfishRequestError(`HTTP GET ${SB} returned code 500.`, 'http', 'GET', SB, true, 500);
      }
      return { SecureBootEnable: enabled };
    },
    async patch(_path: string, body: Resource) {
      patched = true;
      if (opts.apply === 'reboot') pending = body.SecureBootEnable as boolean;
      else if (opts.apply !== 'never') enabled = body.SecureBootEnable as boolean;
    },
  } as unknown as RedfishClient;
  const system = new RedfishSystem(client, S, { Boot: { BootSourceOverrideMode: 'UEFI' }, SecureBoot: { '@odata.id': SB } });
  const power = {
    state: opts.power ?? 'power off',
    calls: [] as string[],
    async getPowerState() {
      return this.state;
    },
    async reboot() {
      this.calls.push('reboot');
      this.state = 'power on';
      if (pending !== undefined) enabled = pending;
    },
    async setPowerState(_task: Task, state: string) {
      this.calls.push(state);
      this.state = state;
    },
  };
  const node = makeNode();
  const task = { node, log: new Logger({ serviceName: 'test', logLevel: 'SILENT' }) } as unknown as Task;
  return { system, power, task, node, enabled: () => enabled };
}

const deps = (power: unknown, over: Partial<RedfishConfig> = {}) => ({
  power: power as PowerInterface,
  config: { bootModeConfigTimeoutSeconds: 1, bootModeConfigIntervalMs: 20, ...over } as RedfishConfig,
});

describe('setSecureBootState', () => {
  it('a BMC that reports the new state at once: no reboot', async () => {
    const { system, power, task, enabled } = setup();
    await setSecureBootState(task, system, true, deps(power));
    expect(enabled()).toBe(true);
    expect(power.calls).toEqual([]);
  });

  it('a BMC that applies it at the next boot: rebooted, waited for, and powered off again', async () => {
    const { system, power, task, enabled } = setup({ apply: 'reboot' });
    await setSecureBootState(task, system, true, deps(power));
    expect(enabled()).toBe(true);
    expect(power.calls).toEqual(['reboot', 'power off']);
  });

  it('a node that was on stays on after the reboot', async () => {
    const { system, power, task } = setup({ apply: 'reboot', power: 'power on' });
    await setSecureBootState(task, system, true, deps(power));
    expect(power.calls).toEqual(['reboot']);
  });

  it('a read answered with a 5xx counts as not read: the node is rebooted and the state read again', async () => {
    const { system, power, task, enabled } = setup({ serverErrors: 1 });
    await setSecureBootState(task, system, true, deps(power));
    expect(enabled()).toBe(true);
    expect(power.calls).toEqual(['reboot', 'power off']);
  });

  it('a read refused otherwise fails', async () => {
    const { system, power, task } = setup({ readError: 404 });
    await expect(setSecureBootState(task, system, true, deps(power))).rejects.toThrow(`Resource ${SB} not found`);
  });

  it('a BMC that never applies it: master’s timeout error after boot_mode_config_timeout', async () => {
    const { system, power, task, node } = setup({ apply: 'never' });
    const started = Date.now();
    await expect(setSecureBootState(task, system, true, deps(power))).rejects.toThrow(
      `Redfish exception occurred. Error: Timeout reached while waiting for secure boot state of node ${node.uuid} to become True, current is False`,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    // The reboot happened; the node is left as the failure found it (as Ironic does).
    expect(power.calls).toEqual(['reboot']);
  });

  it('boot_mode_config_timeout 0: reboots and puts the power back without waiting', async () => {
    const { system, power, task, enabled } = setup({ apply: 'never' });
    await setSecureBootState(task, system, true, deps(power, { bootModeConfigTimeoutSeconds: 0 }));
    expect(enabled()).toBe(false);
    expect(power.calls).toEqual(['reboot', 'power off']);
  });
});
