/**
 * The `agent` inspect interface's choice between managed and unmanaged in-band inspection (Ironic's
 * `ironic_manages_boot` and `[inspector]require_managed_boot`), and the power and boot device
 * sequence of each: unmanaged, the node is powered off, set to boot PXE once and powered on (or
 * rebooted with disable_power_off), and its clean-up never touches the boot interface.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { MissingParameterValue, UnsupportedDriverExtension } from '../../../functions/common/errors';
import { type InspectorConfig, loadInspectorConfig } from '../../../functions/common/config';
import type { BootInterface, Driver, InspectionTask, NetworkInterface } from '../../../functions/drivers/base';
import { createAgentInspect } from '../../../functions/drivers/inspector/agent';
import type { Node } from '../../../functions/objects/node';
import { makeNode } from '../helpers/builders';

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });

interface Rig {
  readonly calls: string[];
  readonly task: InspectionTask;
  readonly inspect: ReturnType<typeof createAgentInspect>;
}

/**
 * A driver that records what the interface asks of it. `boot`/`network` give `validateInspection`
 * (undefined: the interface has none, as Ironic's FakeBoot or the flat network without Neutron).
 */
function rig(options: {
  boot?: BootInterface['validateInspection'];
  network?: NetworkInterface['validateInspection'];
  config?: Partial<InspectorConfig>;
  node?: Partial<Parameters<typeof makeNode>[0]>;
  failing?: string;
}): Rig {
  const calls: string[] = [];
  const record =
    (name: string) =>
    async (...args: unknown[]) => {
      calls.push([name, ...args.slice(1).map((a) => JSON.stringify(a))].join(' '));
      if (options.failing === name) throw new Error(`${name} failed`);
    };
  const driver = {
    boot: {
      name: 'test-boot',
      validateInspection: options.boot,
      prepareRamdisk: record('prepareRamdisk'),
      cleanUpRamdisk: record('cleanUpRamdisk'),
    },
    network: { name: 'test-network', validateInspection: options.network },
    power: { setPowerState: record('setPowerState'), reboot: record('reboot') },
    management: { validate: record('management.validate'), setBootDevice: record('setBootDevice') },
  } as unknown as Driver;
  const node: Node = makeNode({ provision_state: 'inspecting', inspect_interface: 'agent', power_state: 'power on', ...options.node });
  const config = { ...loadInspectorConfig({}), preCreatePorts: false, hooks: [], ...options.config };
  const inspect = createAgentInspect({ driverOf: () => driver, config: () => config, fastTrack: () => false, refusal: () => undefined });
  const task: InspectionTask = {
    node,
    log,
    ports: { list: async () => [], create: async () => true, save: async () => {}, destroy: async () => {} },
  };
  return { calls, task, inspect };
}

const unsupported = async () => {
  throw new UnsupportedDriverExtension('fake-hardware', 'validate_inspection');
};
const UNSUPPORTED = 'Driver fake-hardware does not support validate_inspection (disabled or not implemented).';

async function started(r: Rig): Promise<void> {
  const wait = await r.inspect.inBand!.start(r.task);
  await wait.start();
}

describe('require_managed_boot', () => {
  it("defaults to true, as Ironic's, and is read from INSPECTOR_REQUIRE_MANAGED_BOOT", () => {
    expect(loadInspectorConfig({}).requireManagedBoot).toBe(true);
    expect(loadInspectorConfig({ INSPECTOR_REQUIRE_MANAGED_BOOT: 'false' }).requireManagedBoot).toBe(false);
    expect(() => loadInspectorConfig({ INSPECTOR_REQUIRE_MANAGED_BOOT: 'maybe' })).toThrow(/INSPECTOR_REQUIRE_MANAGED_BOOT/);
  });

  it('on: validation and the start refuse a boot interface that cannot boot the ramdisk; nothing is powered', async () => {
    const r = rig({ config: { requireManagedBoot: true } });
    await expect(r.inspect.validate(r.task)).rejects.toThrow(UNSUPPORTED);
    await expect(r.inspect.inBand!.start(r.task)).rejects.toThrow(UnsupportedDriverExtension);
    const net = rig({ boot: async () => {}, network: unsupported, config: { requireManagedBoot: true } });
    await expect(net.inspect.validate(net.task)).rejects.toThrow(UNSUPPORTED);
    expect([...r.calls, ...net.calls]).toEqual([]);
  });

  it("off: validation does not ask the boot interface (as Ironic's)", async () => {
    let asked = 0;
    const boot = async () => {
      asked += 1;
      await unsupported();
    };
    const r = rig({ boot, config: { requireManagedBoot: false } });
    await expect(r.inspect.validate(r.task)).resolves.toBeUndefined();
    expect(asked).toBe(0);
  });
});

describe('unmanaged in-band inspection (require_managed_boot off)', () => {
  it('a boot interface without inspection support: power off, PXE once, power on; the ramdisk is not prepared', async () => {
    const r = rig({ config: { requireManagedBoot: false } });
    await started(r);
    expect(r.calls).toEqual(['setPowerState "power off"', 'management.validate', 'setBootDevice "pxe" false', 'setPowerState "power on"']);
    expect(r.task.node.driver_internal_info).toMatchObject({ inspector_manage_boot: false });
    expect(r.task.node.power_state).toBe('power on');
  });

  it('a network interface without inspection support (flat) makes it unmanaged too', async () => {
    const r = rig({ boot: async () => {}, network: undefined, config: { requireManagedBoot: false } });
    await started(r);
    expect(r.calls).toEqual(['setPowerState "power off"', 'management.validate', 'setBootDevice "pxe" false', 'setPowerState "power on"']);
    expect(r.task.node.driver_internal_info.inspector_manage_boot).toBe(false);
  });

  it("sets the PXE boot persistently when the node's force_persistent_boot_device is Always (Ironic's node_set_boot_device)", async () => {
    const r = rig({ config: { requireManagedBoot: false }, node: { driver_info: { force_persistent_boot_device: 'Always' } } });
    await started(r);
    expect(r.calls).toEqual(['setPowerState "power off"', 'management.validate', 'setBootDevice "pxe" true', 'setPowerState "power on"']);
  });

  it('with disable_power_off: no power off, a reboot instead of power on', async () => {
    const r = rig({ config: { requireManagedBoot: false }, node: { disable_power_off: true } });
    await started(r);
    expect(r.calls).toEqual(['management.validate', 'setBootDevice "pxe" false', 'reboot']);
  });

  it('any other validation error (virtual media without its ISO) fails the start: no unmanaged fallback', async () => {
    const r = rig({
      boot: async () => {
        throw new MissingParameterValue('Missing deploy_iso');
      },
      config: { requireManagedBoot: false },
    });
    await expect(r.inspect.validate(r.task)).resolves.toBeUndefined();
    await expect(r.inspect.inBand!.start(r.task)).rejects.toThrow('Missing deploy_iso');
    expect(r.calls).toEqual([]);
  });

  it('a failing start leaves the boot interface alone', async () => {
    const r = rig({ config: { requireManagedBoot: false }, failing: 'setBootDevice' });
    await expect(r.inspect.inBand!.start(r.task)).rejects.toThrow('unable to start inspection: setBootDevice failed');
    expect(r.calls).toEqual(['setPowerState "power off"', 'management.validate', 'setBootDevice "pxe" false']);
  });

  it('a failing power on leaves the boot interface alone', async () => {
    const r = rig({ config: { requireManagedBoot: false }, failing: 'reboot', node: { disable_power_off: true } });
    const wait = await r.inspect.inBand!.start(r.task);
    await expect(wait.start()).rejects.toThrow('unable to start inspection: reboot failed');
    expect(r.calls).toEqual(['management.validate', 'setBootDevice "pxe" false', 'reboot']);
  });

  it('the end of the inspection powers the node off without touching the boot interface', async () => {
    const r = rig({ config: { requireManagedBoot: false } });
    await started(r);
    r.calls.length = 0;
    await r.inspect.inBand!.continue(r.task, { interfaces: [] }, {});
    expect(r.calls).toEqual(['setPowerState "power off"']);
    expect(r.task.node.driver_internal_info.inspector_manage_boot).toBeUndefined();
  });

  it('failing hooks leave the boot interface and the power alone (the ramdisk was not booted by Ironless)', async () => {
    const r = rig({ config: { requireManagedBoot: false, hooks: ['ramdisk-error'] } });
    await started(r);
    r.calls.length = 0;
    await expect(r.inspect.inBand!.continue(r.task, { interfaces: [] }, { error: 'no disks' })).rejects.toThrow(
      /Ramdisk reported error: no disks/,
    );
    expect(r.calls).toEqual([]);
  });

  it('an abort powers the node off without touching the boot interface', async () => {
    const r = rig({ config: { requireManagedBoot: false } });
    await started(r);
    r.calls.length = 0;
    await r.inspect.inBand!.abort(r.task);
    expect(r.calls).toEqual(['setPowerState "power off"']);
  });
});

describe('managed in-band inspection', () => {
  it('boot and network able to boot the ramdisk: prepared, whatever require_managed_boot says', async () => {
    for (const requireManagedBoot of [true, false]) {
      const r = rig({ boot: async () => {}, network: async () => {}, config: { requireManagedBoot } });
      await r.inspect.validate(r.task);
      await started(r);
      expect(r.calls).toEqual(['setPowerState "power off"', 'prepareRamdisk {}', 'setPowerState "power on"']);
      expect(r.task.node.driver_internal_info.inspector_manage_boot).toBe(true);
      r.calls.length = 0;
      await r.inspect.inBand!.abort(r.task);
      expect(r.calls).toEqual(['cleanUpRamdisk', 'setPowerState "power off"']);
    }
  });
});
