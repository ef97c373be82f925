/**
 * The `redfish` hardware type (Ironic's `drivers/redfish.py`), limited to the implementations
 * Ironless has. Interface lists keep Ironic's order, so defaults are Ironic's defaults among them.
 */
import type { AnyInterface, HardwareType } from '../base';
import { directDeploy } from '../agent/deploy';
import { fakeDeploy } from '../fake';
import { flatNetwork } from '../flat';
import { noBios, noConsole, noFirmware, noInspect, noRaid, noRescue, noVendor, noopNetwork, noopStorage } from '../noop';
import { agentRaid } from '../agent/raid';
import { agentInspect } from '../inspector/index';
import { createRedfishBios } from './bios';
import { createRedfishFirmware } from './firmware';
import { createRedfishVirtualMediaBoot } from './boot';
import { type RedfishConfig, loadRedfishConfig } from './config';
import { createRedfishGraphicalConsole } from './console';
import { createRedfishIndicators } from './indicators';
import { createRedfishInspect } from './inspect';
import { createRedfishManagement } from './management';
import { createRedfishPower } from './power';
import { createRedfishVirtualMedia } from './vmedia';

/** The Redfish implementations, built with one configuration (tests pass short timeouts). */
export function createRedfishInterfaces(config: RedfishConfig) {
  const power = createRedfishPower(config);
  const management = {
    ...createRedfishManagement(config, power),
    ...createRedfishIndicators(config),
    ...createRedfishVirtualMedia(config),
  };
  const boot = createRedfishVirtualMediaBoot(config, power, management);
  return {
    power,
    management,
    console: createRedfishGraphicalConsole(config),
    boot,
    inspect: createRedfishInspect(config),
    bios: createRedfishBios(config, power, boot),
    firmware: createRedfishFirmware(config, power, boot),
  };
}

/**
 * Implementations by interface type for the registry. `direct` (the agent) is the default deploy
 * interface, as in Ironic. NOTE: `fake` deploy stays available (Ironic's redfish type has none) so
 * a redfish node can be walked through deploy without a ramdisk.
 */
export function redfishImplementations(config: RedfishConfig = loadRedfishConfig()): Record<string, readonly AnyInterface[]> {
  const redfish = createRedfishInterfaces(config);
  return {
    bios: [redfish.bios, noBios],
    boot: [redfish.boot],
    // no-console stays the default, as with Ironic's default enabled_console_interfaces.
    console: [noConsole, redfish.console],
    deploy: [directDeploy, fakeDeploy],
    // no-firmware stays the default, as with Ironic's default enabled_firmware_interfaces (['no-firmware']).
    firmware: [noFirmware, redfish.firmware],
    inspect: [redfish.inspect, agentInspect, noInspect],
    management: [redfish.management],
    network: [noopNetwork, flatNetwork],
    power: [redfish.power],
    raid: [noRaid, agentRaid],
    rescue: [noRescue],
    storage: [noopStorage],
    vendor: [noVendor],
  };
}

export function hardwareTypeOf(name: string, implementations: Record<string, readonly AnyInterface[]>): HardwareType {
  return {
    name,
    supported: Object.fromEntries(
      Object.entries(implementations).map(([type, impls]) => [type, impls.map((impl) => impl.name)]),
    ) as unknown as HardwareType['supported'],
  };
}
