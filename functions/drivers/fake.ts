/**
 * The fake-hardware hardware type: every interface does nothing but record what it was asked, as
 * Ironic's `drivers/modules/fake.py`. It is what tests and the walking skeleton deploy with.
 */
import { InvalidParameterValue, UnsupportedDriverExtension } from '#common/errors';
import { POWER_OFF, POWER_ON, REBOOT, SOFT_POWER_OFF, SOFT_REBOOT } from '#common/states';
import { refusePowerOff } from './power-off';
import {
  BOOT_DEVICES,
  type BootInterface,
  type DeployInterface,
  type HardwareInterface,
  type HardwareType,
  type InspectInterface,
  type ManagementInterface,
  type PowerInterface,
  type StepDefinition,
  type Task,
} from './base';
import { flatNetwork } from './flat';
import { directDeploy } from './agent/deploy';
import { agentInspect } from './inspector/index';
import { agentRaid } from './agent/raid';
import { raidInterface } from './raid';
import { fakeConsole } from './console';
import { fakeIndicators } from './indicators';
import { FAKE_VENDOR_PASSTHRU, type VendorInterface } from './vendor';
import { fakeBios } from './bios';
import { fakeFirmware } from './firmware';
import { noBios, noConsole, noFirmware, noInspect, noRaid, noRescue, noVendor, noopNetwork, noopStorage } from './noop';

const done = { wait: false } as const;

export const fakePower: PowerInterface = {
  name: 'fake',
  async validate() {},
  async getPowerState(task) {
    return task.node.power_state ?? POWER_OFF;
  },
  async setPowerState(task, state) {
    if (![POWER_ON, POWER_OFF, SOFT_REBOOT, SOFT_POWER_OFF].includes(state)) {
      throw new InvalidParameterValue(`set_power_state called with an invalid power state: ${state}.`);
    }
    refusePowerOff(task.node, state);
    // Soft actions end in a plain state, as a real BMC reports afterwards.
    task.node.power_state = state === SOFT_REBOOT ? POWER_ON : state === SOFT_POWER_OFF ? POWER_OFF : state;
  },
  async reboot(task) {
    task.node.power_state = POWER_ON;
  },
  async getSupportedPowerStates() {
    return [POWER_ON, POWER_OFF, REBOOT, SOFT_REBOOT, SOFT_POWER_OFF];
  },
};

const fakeDeployStep: StepDefinition = {
  step: 'deploy',
  priority: 100,
  async execute() {
    return done;
  },
};

export const fakeDeploy: DeployInterface = {
  name: 'fake',
  async validate() {},
  deploySteps: [fakeDeployStep],
  async tearDown() {},
};

function unsupported(task: Task, extension: string): never {
  throw new UnsupportedDriverExtension(task.node.driver, extension);
}

/** Ironic's FakeManagement: PXE is the only boot device; boot modes, secure boot and NMI are not offered. */
export const fakeManagement: ManagementInterface = {
  name: 'fake',
  async validate() {},
  async getSupportedBootDevices() {
    return [BOOT_DEVICES.PXE];
  },
  async setBootDevice(task, device) {
    if (!(await this.getSupportedBootDevices(task)).includes(device)) {
      throw new InvalidParameterValue(`Invalid boot device ${device} specified.`);
    }
  },
  async getBootDevice() {
    return { boot_device: BOOT_DEVICES.PXE, persistent: false };
  },
  async getSupportedBootModes(task) {
    return unsupported(task, 'get_supported_boot_modes');
  },
  async setBootMode(task) {
    unsupported(task, 'set_boot_mode');
  },
  async getBootMode(task) {
    return unsupported(task, 'get_boot_mode');
  },
  async getSecureBootState(task) {
    return unsupported(task, 'get_secure_boot_state');
  },
  async setSecureBootState(task) {
    unsupported(task, 'set_secure_boot_state');
  },
  async injectNmi(task) {
    unsupported(task, 'inject_nmi');
  },
  async detectVendor(task) {
    return unsupported(task, 'detect_vendor');
  },
  ...fakeIndicators,
};

/**
 * NOTE: unlike Ironic's FakeBoot, it takes part in managed in-band inspection (validateInspection
 * passes), so fake-hardware nodes walk through the `agent` inspect interface managed, where Ironic
 * refuses them (`[inspector]require_managed_boot`, its default) or inspects them unmanaged (PXE
 * once); the "ramdisk" is whatever posts to continue_inspection.
 */
export const fakeBoot: BootInterface = {
  name: 'fake',
  async validate() {},
  async validateInspection() {},
  async prepareRamdisk() {},
  async cleanUpRamdisk() {},
  async prepareInstance() {},
  async cleanUpInstance() {},
};

/** Ironic's FakeInspect: inspection succeeds and finds nothing new. */
export const fakeInspect: InspectInterface = {
  name: 'fake',
  async validate() {},
  async inspectHardware(task) {
    return { properties: { ...task.node.properties }, interfaces: [], macs: [] };
  },
};

/**
 * Ironic's FakeVendorB: its passthru methods (`vendor.ts`) and its service step `log_passthrough`,
 * which logs and does nothing, without the ramdisk (`requires_ramdisk=False`), so fake-hardware
 * nodes can be serviced out-of-band.
 */
export const fakeVendor: VendorInterface = {
  name: 'fake',
  async validate() {},
  ...FAKE_VENDOR_PASSTHRU,
  serviceSteps: [
    {
      step: 'log_passthrough',
      priority: 0,
      requiresRamdisk: false,
      async execute(task, args) {
        task.log.info('log_passthrough service step', { node: task.node.uuid, args });
        return done;
      },
    },
  ],
};

function passive(name: string): HardwareInterface {
  return { name, async validate() {} };
}

/** Implementations by interface type and name, for the names fake-hardware supports. */
export const FAKE_INTERFACES = {
  bios: [fakeBios, noBios],
  boot: [fakeBoot],
  console: [fakeConsole, noConsole],
  deploy: [fakeDeploy, directDeploy],
  firmware: [fakeFirmware, noFirmware],
  inspect: [fakeInspect, agentInspect, noInspect],
  management: [fakeManagement],
  network: [noopNetwork, flatNetwork],
  power: [fakePower],
  raid: [raidInterface('fake'), noRaid, agentRaid],
  rescue: [passive('fake'), noRescue],
  storage: [noopStorage, passive('fake')],
  vendor: [fakeVendor, noVendor],
} as const;

export const fakeHardware: HardwareType = {
  name: 'fake-hardware',
  supported: Object.fromEntries(
    Object.entries(FAKE_INTERFACES).map(([type, impls]) => [type, impls.map((impl) => impl.name)]),
  ) as unknown as HardwareType['supported'],
};
