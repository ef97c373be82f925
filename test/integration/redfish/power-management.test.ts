/**
 * The redfish power and management interfaces against virtual BMCs over HTTP: resets and the wait
 * for the target state, the boot source override, boot mode, secure boot and NMI.
 */
import { Fleet } from '../../../local/fleet/fleet';
import type { VirtualMachine } from '../../../local/fleet/machine';
import { failure, redfish, redfishNode, taskFor } from './helpers';

let fleet: Fleet;

beforeAll(async () => {
  fleet = await new Fleet({ count: 0, prefix: 'pm' }).start();
});

afterAll(async () => {
  await fleet?.stop();
});

/** Until a machine's pending power transition is over. */
async function settled(machine: VirtualMachine): Promise<void> {
  while (machine.powerState === 'PoweringOn' || machine.powerState === 'PoweringOff') await new Promise((r) => setTimeout(r, 20));
}

function setup(overrides: Parameters<Fleet['add']>[0] = {}) {
  const machine = fleet.add(overrides);
  const node = redfishNode(fleet, machine);
  return { machine, node, task: taskFor(node) };
}

describe('redfish power', () => {
  it('reads the power state, powers on and off, and reboots through ComputerSystem.Reset', async () => {
    const { machine, task } = setup();
    expect(await redfish.power.getPowerState(task)).toBe('power off');

    await redfish.power.setPowerState(task, 'power on');
    expect(machine.powerState).toBe('On');
    expect(await redfish.power.getPowerState(task)).toBe('power on');

    await redfish.power.reboot(task);
    // A hard reboot of a running machine: ForceOff, then On.
    expect(machine.resets.slice(-2)).toEqual(['ForceOff', 'On']);
    expect(machine.powerState).toBe('On');
    expect(machine.boots).toHaveLength(2);

    await redfish.power.setPowerState(task, 'rebooting');
    expect(machine.resets.at(-1)).toBe('ForceRestart');
    await redfish.power.setPowerState(task, 'power off');
    expect(machine.resets.at(-1)).toBe('ForceOff');
    expect(await redfish.power.getPowerState(task)).toBe('power off');
    expect(await redfish.power.getSupportedPowerStates(task)).toEqual([
      'power on',
      'power off',
      'rebooting',
      'soft rebooting',
      'soft power off',
    ]);
  });

  it('counts PoweringOn/PoweringOff as the state they lead to, as Ironic does, and maps soft actions to graceful resets', async () => {
    const { machine, task } = setup({ powerDelayMs: 300 });
    await redfish.power.setPowerState(task, 'power on');
    expect(['PoweringOn', 'On']).toContain(machine.powerState);
    await settled(machine);
    await redfish.power.setPowerState(task, 'soft rebooting');
    expect(machine.resets.at(-1)).toBe('GracefulRestart');
    await settled(machine);
    await redfish.power.setPowerState(task, 'soft power off');
    expect(machine.resets.at(-1)).toBe('GracefulShutdown');
    expect(['PoweringOff', 'Off']).toContain(machine.powerState);
    expect(await redfish.power.getPowerState(task)).toBe('power off');
  });

  it('fails with PowerStateFailure when the machine never reaches the state (a guest ignoring ACPI)', async () => {
    const { machine, task } = setup({ acpi: false });
    await redfish.power.setPowerState(task, 'power on');
    const { error, ms } = await failure(() => redfish.power.setPowerState(task, 'soft power off', 1));
    expect(error.message).toBe(`Failed to set node power state to power off.`);
    expect(error.name).toBe('PowerStateFailure');
    expect(ms).toBeLessThan(10_000);
    expect(machine.powerState).toBe('On');
  });

  it('fails with PowerStateFailure when the BMC accepts resets and nothing happens', async () => {
    const { machine, task } = setup();
    machine.setFaults({ powerStuck: true });
    const { error } = await failure(() => redfish.power.setPowerState(task, 'power on', 1));
    expect(error.message).toBe('Failed to set node power state to power on.');
    expect(machine.resets.at(-1)).toBe('On');
  });

  it('refuses a power state Ironic does not know', async () => {
    const { task } = setup();
    const { error } = await failure(() => redfish.power.setPowerState(task, 'sideways'));
    expect(error.message).toBe('set_power_state called with an invalid power state: sideways.');
  });
});

describe('redfish management', () => {
  it('sets and reads the boot device, once or persistent, with the enabled flag only when it changes', async () => {
    const { machine, task } = setup();
    expect(await redfish.management.getBootDevice(task)).toEqual({ boot_device: null, persistent: null });
    expect(await redfish.management.getSupportedBootDevices(task)).toEqual(['pxe', 'disk', 'cdrom', 'bios']);

    await redfish.management.setBootDevice(task, 'pxe');
    expect(machine.boot).toMatchObject({ target: 'Pxe', enabled: 'Once' });
    expect(await redfish.management.getBootDevice(task)).toEqual({ boot_device: 'pxe', persistent: false });

    await redfish.management.setBootDevice(task, 'disk', true);
    expect(await redfish.management.getBootDevice(task)).toEqual({ boot_device: 'disk', persistent: true });

    // A one-time override is spent by the next boot; a persistent one stays.
    await redfish.management.setBootDevice(task, 'cdrom');
    await redfish.power.setPowerState(task, 'power on');
    expect(machine.boots.at(-1)).toMatchObject({ device: 'Cd', override: true });
    expect(machine.boot).toMatchObject({ target: 'None', enabled: 'Disabled' });
    await redfish.management.setBootDevice(task, 'disk', true);
    await redfish.power.reboot(task);
    expect(machine.boots.at(-1)).toMatchObject({ device: 'Hdd', override: true });
    expect(machine.boot).toMatchObject({ target: 'Hdd', enabled: 'Continuous' });

    const { error } = await failure(() => redfish.management.setBootDevice(task, 'floppy'));
    expect(error.message).toBe('Invalid boot device floppy specified.');
  });

  it('falls back to a one-time boot device on a BMC without Continuous, and restores it at every power on', async () => {
    const { machine, node, task } = setup({ continuousBootOverride: false });
    await redfish.management.setBootDevice(task, 'pxe', true);
    expect(machine.boot).toMatchObject({ target: 'Pxe', enabled: 'Once' });
    expect(node.driver_internal_info.redfish_boot_device).toBe('pxe');

    await redfish.power.setPowerState(task, 'power on');
    expect(machine.boots.at(-1)).toMatchObject({ device: 'Pxe' });
    // Restored before the power on, spent by the boot, restored again before the next one.
    await redfish.power.reboot(task);
    expect(machine.boots.at(-1)).toMatchObject({ device: 'Pxe', override: true });

    // Asking for a boot device again forgets the one to restore.
    await redfish.management.setBootDevice(task, 'disk');
    expect(node.driver_internal_info.redfish_boot_device).toBeUndefined();
  });

  it('sets and reads the boot mode', async () => {
    const { machine, task } = setup({ bootMode: 'Legacy' });
    expect(await redfish.management.getSupportedBootModes(task)).toEqual(['uefi', 'bios']);
    expect(await redfish.management.getBootMode(task)).toBe('bios');
    await redfish.management.setBootMode(task, 'uefi');
    expect(machine.boot.mode).toBe('UEFI');
    expect(await redfish.management.getBootMode(task)).toBe('uefi');
  });

  it('turns secure boot on and off, and refuses it in legacy mode with Ironic message', async () => {
    const { machine, node, task } = setup({ bootMode: 'Legacy' });
    expect(await redfish.management.getSecureBootState(task)).toBe(false);
    const { error } = await failure(() => redfish.management.setSecureBootState(task, true));
    expect(error.message).toBe(`Redfish exception occurred. Error: Configuring secure boot requires UEFI for node ${node.uuid}`);

    await redfish.management.setBootMode(task, 'uefi');
    await redfish.management.setSecureBootState(task, true);
    expect(machine.secureBoot).toBe(true);
    expect(await redfish.management.getSecureBootState(task)).toBe(true);
    await redfish.management.setSecureBootState(task, false);
    expect(machine.secureBoot).toBe(false);
  });

  it('detects the vendor from the system', async () => {
    const { task } = setup();
    expect(await redfish.management.detectVendor(task)).toBe('Ironless');
  });

  it('injects an NMI into a running machine', async () => {
    const { machine, task } = setup();
    await redfish.power.setPowerState(task, 'power on');
    const nmi = new Promise((resolve) => machine.once('nmi', resolve));
    await redfish.management.injectNmi(task);
    await expect(nmi).resolves.toMatchObject({ machine });
    expect(machine.resets.at(-1)).toBe('Nmi');
  });
});
