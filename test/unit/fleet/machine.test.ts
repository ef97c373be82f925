/** The virtual machine model and its Redfish resources, without HTTP. */
import { defaultSpec } from '../../../local/fleet/fleet';
import { type BootEvent, VirtualMachine } from '../../../local/fleet/machine';
import { machineIdOf, routeRedfish } from '../../../local/fleet/redfish';
import { parseFaults } from '../../../local/fleet/server';

function machine(overrides: Parameters<typeof defaultSpec>[2] = {}) {
  return new VirtualMachine(defaultSpec('t', 0, overrides));
}

describe('VirtualMachine', () => {
  it('boots from its disk, or once from the override, which is then spent', () => {
    const m = machine();
    m.reset('On');
    expect(m.boots.at(-1)).toMatchObject({ device: 'Hdd', override: false, mode: 'UEFI' });
    m.setBoot({ target: 'Pxe', enabled: 'Once' });
    m.reset('ForceRestart');
    expect(m.boots.at(-1)).toMatchObject({ device: 'Pxe', override: true });
    expect(m.boot).toMatchObject({ target: 'None', enabled: 'Disabled' });
    m.setBoot({ target: 'Cd', enabled: 'Continuous' });
    m.insertMedia('Cd', 'http://images/ipa.iso');
    m.reset('ForceRestart');
    m.reset('ForceRestart');
    expect(m.boots.slice(-2).map((b) => [b.device, b.image])).toEqual([
      ['Cd', 'http://images/ipa.iso'],
      ['Cd', 'http://images/ipa.iso'],
    ]);
  });

  it('starts a guest on boot and stops it on power off (where the ramdisk agent plugs in)', async () => {
    const m = machine();
    const started: BootEvent[] = [];
    let stopped = 0;
    m.guestFactory = (event) => {
      started.push(event);
      return { stop: () => void stopped++ };
    };
    m.reset('On');
    await new Promise((r) => setImmediate(r));
    expect(started).toHaveLength(1);
    m.reset('ForceRestart');
    await new Promise((r) => setImmediate(r));
    expect([started.length, stopped]).toEqual([2, 1]);
    m.reset('ForceOff');
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(2);
  });

  it('ignores graceful actions without ACPI, and every action when power is stuck', () => {
    const m = machine({ acpi: false });
    m.reset('On');
    m.reset('GracefulShutdown');
    expect(m.powerState).toBe('On');
    m.setFaults({ powerStuck: true });
    m.reset('ForceOff');
    expect(m.powerState).toBe('On');
    expect(m.resets).toEqual(['On', 'GracefulShutdown', 'ForceOff']);
  });

  it('refuses what its BMC does not support', () => {
    const m = machine({ continuousBootOverride: false });
    expect(() => m.setBoot({ target: 'Floppy' })).toThrow('The value Floppy for BootSourceOverrideTarget is not allowed');
    expect(() => m.setBoot({ enabled: 'Continuous' })).toThrow('The value Continuous for BootSourceOverrideEnabled is not allowed');
    m.setBoot({ mode: 'Legacy' });
    expect(() => m.setSecureBoot(true)).toThrow('Secure boot needs UEFI');
    expect(() => m.insertMedia('Cd', '')).toThrow('InsertMedia needs an Image');
  });

  it('has unique MACs and its own credentials per machine, the same for the same prefix', () => {
    const a = defaultSpec('x', 0);
    const b = defaultSpec('x', 1);
    const macs = [...a.nics, ...b.nics].map((n) => n.mac);
    expect(new Set(macs).size).toBe(4);
    for (const mac of macs) expect(mac).toMatch(/^52:54:00(:[0-9a-f]{2}){3}$/);
    expect(a.password).not.toBe(b.password);
    expect(defaultSpec('x', 0)).toEqual(a);
    expect(defaultSpec('y', 0).nics[0]?.mac).not.toBe(a.nics[0]?.mac);
  });
});

describe('Redfish resources', () => {
  const m = machine();
  const machines = new Map([[m.id, m]]);
  const get = (path: string) => routeRedfish(machines, { method: 'GET', path, body: undefined });

  it('links the service root, systems, managers and virtual media', () => {
    expect(get('/redfish/v1')).toMatchObject({ status: 200, body: { Systems: { '@odata.id': '/redfish/v1/Systems' } } });
    expect(get('/redfish/v1/Systems')).toMatchObject({ body: { Members: [{ '@odata.id': '/redfish/v1/Systems/t-0' }] } });
    expect(get('/redfish/v1/Systems/t-0')).toMatchObject({
      body: { PowerState: 'Off', Links: { ManagedBy: [{ '@odata.id': '/redfish/v1/Managers/t-0' }] } },
    });
    expect(get('/redfish/v1/Managers/t-0/VirtualMedia/Cd')).toMatchObject({ body: { MediaTypes: ['CD', 'DVD'], Inserted: false } });
    expect(get('/redfish/v1/Systems/t-0/Storage/1/Drives/0')).toMatchObject({ body: { CapacityBytes: 100 * 1024 ** 3 } });
    expect(get('/redfish/v1/Systems/nope').status).toBe(404);
    expect(get('/redfish/v1/Systems/t-0/Storage/1/Drives/7').status).toBe(404);
  });

  it('answers bad requests with Redfish errors', () => {
    const reset = routeRedfish(machines, {
      method: 'POST',
      path: '/redfish/v1/Systems/t-0/Actions/ComputerSystem.Reset',
      body: { ResetType: 'Bounce' },
    });
    expect(reset).toMatchObject({
      status: 400,
      body: { error: { '@Message.ExtendedInfo': [{ Message: 'The value Bounce for the parameter ResetType is not allowed.' }] } },
    });
    const patch = routeRedfish(machines, {
      method: 'PATCH',
      path: '/redfish/v1/Systems/t-0',
      body: { Boot: { BootSourceOverrideMode: 'Magic' } },
    });
    expect(patch.status).toBe(400);
    expect(routeRedfish(machines, { method: 'DELETE', path: '/redfish/v1/Systems/t-0', body: undefined }).status).toBe(405);
  });

  it('refuses InsertMedia with mediaUnreachable, inserting nothing, and inserts again once cleared', () => {
    const vm = machine();
    const vms = new Map([[vm.id, vm]]);
    const insert = () =>
      routeRedfish(vms, {
        method: 'POST',
        path: '/redfish/v1/Managers/t-0/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia',
        body: { Image: 'http://images/x.iso', Inserted: true },
      });
    vm.setFaults({ mediaUnreachable: true });
    expect(insert()).toMatchObject({
      status: 400,
      body: { error: { '@Message.ExtendedInfo': [{ Message: 'The image http://images/x.iso could not be fetched by the BMC' }] } },
    });
    expect(vm.media.Cd).toMatchObject({ inserted: false, image: null });
    vm.clearFaults();
    expect(insert().status).toBe(204);
    expect(vm.media.Cd).toMatchObject({ inserted: true, image: 'http://images/x.iso' });
    expect(parseFaults({ mediaUnreachable: 'yes' })).toBe('mediaUnreachable must be true or false');
  });

  it('names the machine a path belongs to', () => {
    expect(machineIdOf('/redfish/v1/Managers/t-0/VirtualMedia/Cd')).toBe('t-0');
    expect(machineIdOf('/redfish/v1/Systems')).toBeUndefined();
  });
});

describe('parseFaults', () => {
  it('accepts known faults and explains bad ones', () => {
    expect(parseFaults({ down: 'hang', slowMs: 10, errorStatus: 503, errorCount: 2, errorMethods: ['POST'], unauthorized: true })).toEqual({
      down: 'hang',
      slowMs: 10,
      errorStatus: 503,
      errorCount: 2,
      errorMethods: ['POST'],
      unauthorized: true,
    });
    expect(parseFaults({ down: 'sideways' })).toBe('down must be "reset" or "hang"');
    expect(parseFaults({ errorStatus: 200 })).toBe('errorStatus must be an HTTP error status (400-599)');
    expect(parseFaults({ fire: true })).toMatch(/^unknown fault\(s\): fire/);
    expect(parseFaults([])).toBe('faults must be a JSON object');
    expect(parseFaults({ missingResources: ['Storage', 'PCIeDevices'], brokenResources: ['SimpleStorage'] })).toEqual({
      missingResources: ['Storage', 'PCIeDevices'],
      brokenResources: ['SimpleStorage'],
    });
    expect(parseFaults({ missingResources: ['Bios'] })).toBe('missingResources must be a list of: SimpleStorage, Storage, PCIeDevices');
    expect(parseFaults({ brokenResources: 'Storage' })).toBe('brokenResources must be a list of: SimpleStorage, Storage, PCIeDevices');
  });
});

describe('boot mode faults', () => {
  it('are checked: bootModeApply reboot|never, bootModeDelayMs a whole number', () => {
    expect(parseFaults({ bootModeApply: 'reboot', bootModeDelayMs: 10 })).toEqual({ bootModeApply: 'reboot', bootModeDelayMs: 10 });
    expect(parseFaults({ bootModeApply: 'later' })).toBe('bootModeApply must be "reboot" or "never"');
    expect(parseFaults({ bootModeDelayMs: -1 })).toBe(
      'slowMs, errorCount, bmcRestartMs, bootModeDelayMs and postRejectsBootOverride must be whole numbers',
    );
  });
});

describe('boot mode faults on a machine', () => {
  it('bootModeApply reboot: the new mode is reported from the next boot on, and that boot uses it', () => {
    const m = machine();
    m.setFaults({ bootModeApply: 'reboot' });
    m.setBoot({ mode: 'Legacy' });
    expect(m.boot.mode).toBe('UEFI');
    m.reset('On');
    expect(m.boot.mode).toBe('Legacy');
    expect(m.boots.at(-1)?.mode).toBe('Legacy');
  });

  it('bootModeApply never: accepted, never reported, not even after a boot', () => {
    const m = machine();
    m.setFaults({ bootModeApply: 'never' });
    m.setBoot({ mode: 'Legacy' });
    m.reset('On');
    expect(m.boot.mode).toBe('UEFI');
  });

  it('bootModeDelayMs: reported that much later', async () => {
    const m = machine();
    m.setFaults({ bootModeDelayMs: 50 });
    m.setBoot({ mode: 'Legacy' });
    expect(m.boot.mode).toBe('UEFI');
    await new Promise((r) => setTimeout(r, 120));
    expect(m.boot.mode).toBe('Legacy');
    await m.dispose();
  });
});

describe('POST and secure boot faults', () => {
  it('are checked: postRejectsBootOverride a whole number, secureBootApply reboot|never', () => {
    expect(parseFaults({ postRejectsBootOverride: 2, secureBootApply: 'reboot' })).toEqual({
      postRejectsBootOverride: 2,
      secureBootApply: 'reboot',
    });
    expect(parseFaults({ postRejectsBootOverride: 1.5 })).toBe(
      'slowMs, errorCount, bmcRestartMs, bootModeDelayMs and postRejectsBootOverride must be whole numbers',
    );
    expect(parseFaults({ secureBootApply: 'later' })).toBe('secureBootApply must be "reboot" or "never"');
  });

  it('postRejectsBootOverride: the next N override PATCHes are refused as iLO in POST, then accepted', () => {
    const m = machine();
    m.setFaults({ postRejectsBootOverride: 2 });
    // A mode alone is no override change: not refused, not counted.
    m.setBoot({ mode: 'UEFI' });
    for (let i = 0; i < 2; i++) {
      expect(() => m.setBoot({ target: 'Pxe' })).toThrow(
        expect.objectContaining({ status: 400, messageId: 'iLO.2.14.UnableToModifyDuringSystemPOST' }),
      );
    }
    expect(m.boot.target).toBe('None');
    m.setBoot({ target: 'Pxe', enabled: 'Once' });
    expect(m.boot).toMatchObject({ target: 'Pxe', enabled: 'Once' });
  });

  it('secureBootApply reboot: the new state is reported from the next boot on; never: not at all', () => {
    const m = machine();
    m.setFaults({ secureBootApply: 'reboot' });
    m.setSecureBoot(true);
    expect(m.secureBoot).toBe(false);
    m.reset('On');
    expect(m.secureBoot).toBe(true);
    const n = machine();
    n.setFaults({ secureBootApply: 'never' });
    n.setSecureBoot(true);
    n.reset('On');
    expect(n.secureBoot).toBe(false);
  });
});
