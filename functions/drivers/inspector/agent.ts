/**
 * The `agent` inspect interface: in-band inspection by the ramdisk (Ironic's
 * `inspector.agent.AgentInspect` with `inspector.interface.Common`).
 *
 * Inspecting boots the ramdisk through the node's boot interface (managed boot) and leaves the node
 * waiting in `inspect wait`. When the boot or the network interface cannot take part (its
 * `validateInspection` is missing or throws UnsupportedDriverExtension) and
 * `[inspector]require_managed_boot` is off, the inspection is unmanaged, as Ironic's: the node is
 * powered off, set to boot PXE once and powered on, and the operator's own PXE environment serves a
 * ramdisk built to inspect; with it on (Ironic's default), validation fails instead. Any other
 * error of `validateInspection` (a virtual media boot without its ISO) fails either way: Ironic has
 * no unmanaged fallback for it. The ramdisk posts its inventory to `POST /v1/continue_inspection`;
 * the conductor then runs the inspection hooks on it (`continueInspection`), which set the node's
 * properties and ports, tears the ramdisk down if it booted it and powers the node off (unless fast
 * track keeps the agent for what comes next), and stores the data apart from the node.
 *
 * NOTE: Ironic passes `ipa-inspection-callback-url` to the ramdisk as a kernel parameter. Ironless's
 * boot interfaces boot a prebuilt ISO (`driver_info/deploy_iso`), into which Ironic cannot put
 * parameters either (without `config_via_removable`): the ramdisk must be built to inspect, with
 * `ipa-inspection-callback-url=<API>/v1/continue_inspection` (or `ipa-inspection-collectors` and
 * `ipa-api-url`) on its command line. IPA then posts at every boot and, answered 404 when its node
 * waits for no inspection, goes on to look up its node as usual.
 *
 * A service pinned to a release whose RPC API lacks `continue_inspection` refuses to start an
 * inspection (validation fails): the ramdisk's data could not reach a conductor, and an inspection
 * that can never complete must never start.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { HardwareInspectionFailure, TemporaryFailure, UnsupportedDriverExtension } from '#common/errors';
import type { InspectorConfig } from '#common/config';
import { POWER_OFF, POWER_ON } from '#common/states';
import type { Node } from '#objects/node';
import { BOOT_DEVICES, type Driver, type InspectInterface, type InspectionTask, type Task } from '../base';
import { setNodeBootDevice } from '../boot-device';
import { runInspectionHooks, validateInspectionHooks } from './hooks';

/** driver_internal_info: whether Ironless booted the ramdisk (Ironic's `inspector_manage_boot`). */
export const MANAGE_BOOT_FIELD = 'inspector_manage_boot';
/** driver_internal_info: the BMC addresses a ramdisk's lookup may name the node by (Ironic's LOOKUP_CACHE_FIELD). */
export const LOOKUP_CACHE_FIELD = 'lookup_bmc_addresses';

export interface AgentInspectOptions {
  /** The node's driver (the registry resolves it; this module must not import the registry). */
  readonly driverOf: (task: Task) => Driver;
  readonly config: () => InspectorConfig;
  /** Ironic's `fast_track_enabled` for the node: the agent then stays up after inspection. */
  readonly fastTrack: (node: Node) => boolean;
  /** Why this service may not start in-band inspections (a pin below RPC continue_inspection); undefined when it may. */
  readonly refusal: () => string | undefined;
}

function isLoopback(ip: string): boolean {
  return ip.startsWith('127.') || ip === '::1' || ip === 'localhost';
}

/**
 * Ironic's `_get_bmc_addresses`: the hosts of every `*_address` in driver_info with the IPs they
 * resolve to, loopback ones left out (they cannot tell nodes apart).
 */
export async function bmcAddresses(node: Node, log: Task['log']): Promise<string[]> {
  const out = new Set<string>();
  for (const [name, value] of Object.entries(node.driver_info)) {
    if (!name.endsWith('_address') || typeof value !== 'string' || value === '') continue;
    let host = value;
    if (host.includes('//')) {
      try {
        host = new URL(host).hostname;
      } catch {
        continue;
      }
    }
    host = host.replace(/^\[/, '').replace(/\]$/, '');
    try {
      const found = isIP(host) ? [{ address: host }] : await lookup(host, { all: true });
      for (const { address } of found) {
        if (isLoopback(address)) log.warn(`Ignoring loopback ${name} ${address} for node ${node.uuid}`);
        else out.add(address);
      }
    } catch (err) {
      log.warn(`Failed to resolve the hostname (${host}) in ${name} of node ${node.uuid}: ${(err as Error).message}`);
      continue;
    }
    if (!isLoopback(host)) out.add(host);
  }
  return [...out];
}

function setInternal(node: Node, key: string, value: unknown): void {
  const info = { ...node.driver_internal_info };
  if (value === undefined) delete info[key];
  else info[key] = value;
  node.driver_internal_info = info;
}

export function createAgentInspect(options: AgentInspectOptions): InspectInterface {
  /**
   * Ironic's `tear_down_managed_boot`: take the ramdisk away if Ironless booted it, and power the
   * node off (when it managed the boot, or `alwaysPowerOff`) unless fast track keeps the agent up.
   * Returns what failed; the node records the new power state.
   */
  async function tearDown(task: Task, alwaysPowerOff: boolean): Promise<string[]> {
    const errors: string[] = [];
    const node = task.node;
    const managed = node.driver_internal_info[MANAGE_BOOT_FIELD] === true;
    setInternal(node, MANAGE_BOOT_FIELD, undefined);
    const driver = options.driverOf(task);
    if (managed) {
      try {
        await driver.boot.cleanUpRamdisk(task);
      } catch (err) {
        errors.push(`unable to clean up ramdisk boot: ${(err as Error).message}`);
      }
    }
    if ((managed || alwaysPowerOff) && options.config().powerOff && !options.fastTrack(node) && !node.disable_power_off) {
      try {
        await driver.power.setPowerState(task, POWER_OFF);
        node.power_state = POWER_OFF;
      } catch (err) {
        errors.push(`unable to power off the node: ${(err as Error).message}`);
      }
    }
    return errors;
  }

  /**
   * Ironic's `ironic_manages_boot`: whether the boot and network interfaces can boot the ramdisk.
   * An interface without `validateInspection` cannot (UnsupportedDriverExtension, as Ironic's base
   * classes: so the `flat` network, which has no inspection network to add without Neutron). Only
   * UnsupportedDriverExtension means "unmanaged"; `raise` rethrows it, any other error always goes up.
   */
  async function managesBoot(task: Task, raise: boolean): Promise<boolean> {
    const driver = options.driverOf(task);
    for (const [kind, iface] of [
      ['boot', driver.boot],
      ['network', driver.network],
    ] as const) {
      try {
        if (iface.validateInspection === undefined) throw new UnsupportedDriverExtension(task.node.driver, 'validate_inspection');
        await iface.validateInspection(task);
      } catch (err) {
        if (raise || !(err instanceof UnsupportedDriverExtension)) throw err;
        task.log.debug(
          `The ${kind} interface ${iface.name} of the node ${task.node.uuid} does not support managed boot for in-band inspection ` +
            `or the required options are not populated: ${err.message}`,
        );
        return false;
      }
    }
    return true;
  }

  /** Ironic's `create_ports_if_not_exist` from the BMC's NICs, before the ramdisk boots (`[inspector]pre_create_ports`). */
  async function preCreatePorts(task: InspectionTask, driver: Driver): Promise<void> {
    if (!options.config().preCreatePorts) return;
    const management = driver.management;
    if (management.getMacAddresses === undefined) {
      task.log.debug(`Pre-creating ports prior to inspection not supported on node ${task.node.uuid}.`);
      return;
    }
    const macs = await management.getMacAddresses(task);
    if (macs.length === 0) {
      task.log.warn(`Not attempting to create any port as no NICs were discovered in 'enabled' state for node ${task.node.uuid}`);
    }
    for (const mac of macs) await task.ports.create({ address: mac, pxe_enabled: true, extra: {} });
  }

  return {
    name: 'agent',

    async validate(task) {
      const refused = options.refusal();
      if (refused !== undefined) throw new TemporaryFailure(refused);
      validateInspectionHooks(options.config().hooks);
      // As Ironic: only a deployment that requires managed boot checks the boot here.
      if (options.config().requireManagedBoot) await managesBoot(task, true);
    },

    async inspectHardware(task) {
      throw new Error(`Node ${task.node.uuid}: the agent inspect interface inspects in band only`);
    },

    inBand: {
      start: async (task) => {
        const node = task.node;
        const driver = options.driverOf(task);
        await preCreatePorts(task, driver);
        const managed = await managesBoot(task, options.config().requireManagedBoot);
        setInternal(node, MANAGE_BOOT_FIELD, managed);
        // For the /continue_inspection lookup by BMC address (as Ironic, for every inspection).
        const addresses = await bmcAddresses(node, task.log);
        setInternal(node, LOOKUP_CACHE_FIELD, addresses.length > 0 ? addresses : undefined);
        task.log.debug(`Starting inspection for node ${node.uuid}. Booting is ${managed ? '' : 'not '}managed by Ironless`);
        // An unmanaged start that fails leaves the boot as it is (Ironic's clean_up=False): nothing was prepared.
        const failed = async (err: unknown): Promise<never> => {
          task.log.error(
            `Unable to start ${managed ? 'managed' : 'unmanaged'} inspection for node ${node.uuid}: ${(err as Error).message}`,
          );
          if (managed) await tearDown(task, false);
          throw new Error(`unable to start inspection: ${(err as Error).message}`);
        };
        try {
          // Power off (never for disable_power_off), then, managed, Ironic's prepare_managed_inspection
          // boots the ramdisk next; unmanaged, the node boots from the network once.
          if (!node.disable_power_off) {
            await driver.power.setPowerState(task, POWER_OFF);
            node.power_state = POWER_OFF;
          }
          if (managed) await driver.boot.prepareRamdisk(task, {});
          else {
            // Ironic's node_set_boot_device: only network boot serves unmanaged inspection.
            await setNodeBootDevice(driver.management, task, BOOT_DEVICES.PXE, false);
          }
        } catch (err) {
          return failed(err);
        }
        return {
          wait: true as const,
          // Powered on only once the node waits in `inspect wait`: the ramdisk may post at once.
          start: async () => {
            try {
              if (node.disable_power_off) await driver.power.reboot(task);
              else await driver.power.setPowerState(task, POWER_ON);
              node.power_state = POWER_ON;
            } catch (err) {
              await failed(err);
            }
          },
        };
      },

      continue: async (task, inventory, pluginData) => {
        const config = options.config();
        try {
          await runInspectionHooks(task, inventory, pluginData, validateInspectionHooks(config.hooks), config);
        } catch (err) {
          // Ironic's inspection_error_handler: the ramdisk is taken away (powered off as it booted it).
          await tearDown(task, false);
          throw new HardwareInspectionFailure(`failed to run inspection hooks: ${(err as Error).message}`);
        }
        const errors = await tearDown(task, true);
        if (errors.length > 0) throw new Error(`Inspection clean up failed: ${errors.join(', ')}`);
      },
      abort: async (task) => {
        setInternal(task.node, LOOKUP_CACHE_FIELD, undefined);
        const errors = await tearDown(task, true);
        if (errors.length > 0) throw new Error(`Inspection clean up failed: ${errors.join(', ')}`);
      },
    },
  };
}
