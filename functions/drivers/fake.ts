/**
 * The fake-hardware hardware type: every interface does nothing but record what it was asked, as
 * Ironic's `drivers/modules/fake.py`. It is what tests and the walking skeleton deploy with.
 */
import { InvalidParameterValue } from '#common/errors';
import { POWER_OFF, POWER_ON, REBOOT, SOFT_POWER_OFF, SOFT_REBOOT } from '#common/states';
import type { DeployInterface, HardwareInterface, HardwareType, PowerInterface, StepDefinition } from './base';

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

function passive(name: string): HardwareInterface {
  return { name, async validate() {} };
}

/** Implementations by interface type and name, for the names fake-hardware supports. */
export const FAKE_INTERFACES = {
  bios: [passive('fake'), passive('no-bios')],
  boot: [passive('fake')],
  console: [passive('fake'), passive('no-console')],
  deploy: [fakeDeploy],
  firmware: [passive('fake'), passive('no-firmware')],
  inspect: [passive('fake'), passive('no-inspect')],
  management: [passive('fake')],
  network: [passive('noop')],
  power: [fakePower],
  raid: [passive('fake'), passive('no-raid')],
  rescue: [passive('fake'), passive('no-rescue')],
  storage: [passive('noop'), passive('fake')],
  vendor: [passive('fake'), passive('no-vendor')],
} as const;

export const fakeHardware: HardwareType = {
  name: 'fake-hardware',
  supported: Object.fromEntries(
    Object.entries(FAKE_INTERFACES).map(([type, impls]) => [type, impls.map((impl) => impl.name)]),
  ) as unknown as HardwareType['supported'],
};
