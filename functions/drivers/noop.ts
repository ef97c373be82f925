/**
 * The generic `no-*` implementations hardware types offer for optional interfaces, after Ironic's
 * `drivers/modules/noop.py`: unlike the fake ones they fail validation and every action with
 * UnsupportedDriverExtension, so `GET /v1/nodes/{id}/validate` shows them as not usable.
 * `noop` network and storage are the exception: they validate and do nothing, as Ironic's.
 */
import { UnsupportedDriverExtension } from '#common/errors';
import type { InterfaceType } from '#objects/node';
import type { BiosInterface, FirmwareInterface, HardwareInterface, InspectInterface, NetworkInterface, RaidInterface, Task } from './base';

function fail(type: InterfaceType, task: Task): never {
  throw new UnsupportedDriverExtension(task.node.driver, type);
}

function unsupported(type: InterfaceType, name: string): HardwareInterface {
  return {
    name,
    async validate(task) {
      fail(type, task);
    },
  };
}

export const noInspect: InspectInterface = {
  name: 'no-inspect',
  async validate(task) {
    fail('inspect', task);
  },
  async inspectHardware(task) {
    fail('inspect', task);
  },
};

export const noBios: BiosInterface = {
  ...unsupported('bios', 'no-bios'),
  async cacheBiosSettings(task) {
    fail('bios', task);
  },
};
export const noConsole = unsupported('console', 'no-console');
export const noFirmware: FirmwareInterface = {
  ...unsupported('firmware', 'no-firmware'),
  async cacheFirmwareComponents(task) {
    fail('firmware', task);
  },
};
/** Ironic's NoRAID: refuses configurations too (an empty target needs no validation, so it may be set). */
export const noRaid: RaidInterface = {
  ...unsupported('raid', 'no-raid'),
  validateRaidConfig(task) {
    fail('raid', task);
  },
};
export const noRescue = unsupported('rescue', 'no-rescue');
export const noVendor = unsupported('vendor', 'no-vendor');

/**
 * Network and storage `noop`: nothing to set up, so nothing to refuse. As Ironic's NoopNetwork, VIF
 * attach and detach accept anything and record nothing, so the list is always empty.
 */
export const noopNetwork: NetworkInterface = {
  name: 'noop',
  async validate() {},
  // As Ironic's NoopNetwork: no inspection network to set up, so nothing to refuse.
  async validateInspection() {},
  async vifList() {
    return [];
  },
  async vifAttach() {},
  async vifDetach() {},
};
export const noopStorage: HardwareInterface = { name: 'noop', async validate() {} };
