/**
 * Setting the boot mode over real HTTP to the virtual fleet, as Ironic master does: a BMC that
 * reports the new mode at once is left alone; one that applies it through a BIOS job at the next
 * boot (`bootModeApply: 'reboot'`, as Dell's), or a while later (`bootModeDelayMs`), gets the node
 * rebooted and is waited for, and the node goes back to the power state it had; one that never
 * applies it fails with master's timeout error. A Supermicro node has its boot mode synced again
 * after its boot device is set.
 */
import { Fleet } from '../../../local/fleet/fleet';
import { createRedfishInterfaces } from '../../../functions/drivers/redfish/index';
import { TEST_CONFIG, failure, redfishNode, taskFor } from './helpers';

// Waits of 3 s at most, polled every 100 ms (Ironic: 900 s, every 15 s).
const redfish = createRedfishInterfaces({ ...TEST_CONFIG, bootModeConfigTimeoutSeconds: 3, bootModeConfigIntervalMs: 100 });

let fleet: Fleet;

beforeAll(async () => {
  fleet = await new Fleet({ prefix: 'bm' }).start();
});

afterAll(async () => {
  await fleet?.stop();
});

function setup(properties: Record<string, unknown> = {}) {
  const machine = fleet.add();
  const node = redfishNode(fleet, machine, { properties });
  return { machine, node, task: taskFor(node) };
}

describe('redfish set boot mode', () => {
  it('a BMC that reports the new mode at once: no reboot', async () => {
    const { machine, task } = setup();
    await redfish.management.setBootMode(task, 'bios');
    expect(machine.boot.mode).toBe('Legacy');
    expect(machine.resets).toEqual([]);
    expect(machine.powerState).toBe('Off');
  });

  it('a BMC that applies it at the next boot (a BIOS job): rebooted, waited for, powered off again', async () => {
    const { machine, task } = setup();
    machine.setFaults({ bootModeApply: 'reboot' });
    await redfish.management.setBootMode(task, 'bios');
    expect(machine.boot.mode).toBe('Legacy');
    // Off before: powered on (the job runs as it boots), then off again.
    expect(machine.resets).toEqual(['On', 'ForceOff']);
    expect(machine.boots.at(-1)?.mode).toBe('Legacy');
    expect(machine.powerState).toBe('Off');
    expect(await redfish.management.getBootMode(task)).toBe('bios');
  });

  it('a BMC that reports it a second later: a machine that was on stays on', async () => {
    const { machine, task } = setup();
    machine.reset('On');
    machine.setFaults({ bootModeDelayMs: 1_000 });
    const started = Date.now();
    await redfish.management.setBootMode(task, 'bios');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(machine.boot.mode).toBe('Legacy');
    expect(machine.resets).toEqual(['On', 'ForceOff', 'On']);
    expect(machine.powerState).toBe('On');
  });

  it('a BMC that never applies it: Ironic’s timeout error after boot_mode_config_timeout', async () => {
    const { machine, node, task } = setup();
    machine.setFaults({ bootModeApply: 'never' });
    const { error, ms } = await failure(() => redfish.management.setBootMode(task, 'bios'));
    expect(error.message).toBe(
      `Redfish exception occurred. Error: Timeout reached while waiting for boot mode of node ${node.uuid} to become Legacy, current is UEFI`,
    );
    expect(ms).toBeGreaterThanOrEqual(2_900);
    expect(ms).toBeLessThan(15_000);
    expect(machine.boot.mode).toBe('UEFI');
    // The reboot happened; the machine is left as the failure found it (as Ironic does).
    expect(machine.resets).toEqual(['On']);
  }, 30_000);

  it('a BMC refusing the mode fails at once, without a reboot', async () => {
    const { machine, node, task } = setup();
    machine.setFaults({ errorStatus: 400, errorMethods: ['PATCH'] });
    const { error } = await failure(() => redfish.management.setBootMode(task, 'bios'));
    expect(error.message).toMatch(
      new RegExp(`^Redfish exception occurred\\. Error: Setting boot mode to bios failed for node ${node.uuid}\\. Error: `),
    );
    expect(machine.resets).toEqual([]);
  });
});

describe('redfish set boot device on a Supermicro', () => {
  it('syncs the boot mode again after the boot device (its BMC may have reset it)', async () => {
    const { machine, task } = setup({ vendor: 'Supermicro', capabilities: 'boot_mode:bios' });
    await redfish.management.setBootDevice(task, 'cdrom', false);
    expect(machine.boot).toMatchObject({ target: 'Cd', enabled: 'Once', mode: 'Legacy' });
  });

  it('other vendors: the boot mode is left as it is', async () => {
    const { machine, task } = setup({ vendor: 'Dell Inc.', capabilities: 'boot_mode:bios' });
    await redfish.management.setBootDevice(task, 'cdrom', false);
    expect(machine.boot).toMatchObject({ target: 'Cd', enabled: 'Once', mode: 'UEFI' });
  });
});
