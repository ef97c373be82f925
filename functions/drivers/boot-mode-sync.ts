/**
 * Bringing the BMC's boot mode in line with the node's before a boot (Ironic's
 * `boot_mode_utils.sync_boot_mode`, with `conductor/utils.py` `node_get_boot_mode`,
 * `node_set_boot_mode` and `node_cache_boot_mode`). Boot interfaces call it before booting the
 * ramdisk and the instance:
 *
 * - the node asks for no mode and the BMC cannot say: the default (`uefi`) is recorded in
 *   `driver_internal_info.deploy_boot_mode` and set on the BMC, an unsupported set only logged;
 * - the node asks for none and the BMC says: the BMC's mode is recorded there, nothing is set;
 * - the node asks for one and the BMC cannot say: it is set, an unsupported set only logged;
 * - both say and differ: it is set, and a BMC that cannot set it fails the boot.
 *
 * A set that succeeds caches the BMC's boot mode and secure boot state in the node's `boot_mode`
 * and `secure_boot` fields. An instance whose capabilities ask for secure boot gets it turned on
 * as it is prepared and off as it is cleaned up (Ironic's `configure_secure_boot_if_needed` and
 * `deconfigure_secure_boot_if_needed`). NOTE: `driver_internal_info.deploy_boot_mode` then counts as the node's
 * request until tear-down removes it, as in Ironic.
 */
import { InvalidParameterValue, UnsupportedDriverExtension } from '#common/errors';
import { ADOPTING } from '#common/states';
import type { ManagementInterface, Task } from './base';
import { DEFAULT_BOOT_MODE, requestedBootMode, secureBootRequested } from './boot-mode';
import { rethrowRefusal } from './guard';

/** Ironic's node_get_boot_mode: null when the BMC does not say; UnsupportedDriverExtension when it cannot. */
async function bmcBootMode(task: Task, management: ManagementInterface): Promise<string | null> {
  await management.validate(task);
  return management.getBootMode(task);
}

/** Ironic's node_set_boot_mode: nothing while adopting; a mode the driver lists as unsupported is refused. */
async function setBmcBootMode(task: Task, management: ManagementInterface, mode: string): Promise<void> {
  if (task.node.provision_state === ADOPTING) return;
  await management.validate(task);
  let supported: string[] = [];
  try {
    supported = await management.getSupportedBootModes(task);
  } catch (err) {
    if (!(err instanceof UnsupportedDriverExtension)) throw err;
    task.log.debug('Cannot determine the supported boot modes, trying to set the boot mode anyway', { node: task.node.uuid, mode });
  }
  if (supported.length > 0 && !supported.includes(mode)) {
    throw new InvalidParameterValue(
      `Unsupported boot mode ${mode} specified for node ${task.node.uuid}. Supported boot modes are: ${supported.join(', ')}`,
    );
  }
  await management.setBootMode(task, mode);
}

/**
 * Ironic's node_cache_boot_mode: the node's `boot_mode` and `secure_boot` as the BMC reports them
 * (null where the driver cannot read them); an unexpected failure to read leaves both as they are.
 */
export async function cacheBootMode(task: Task, management: ManagementInterface): Promise<void> {
  const read = async <T>(what: string, fn: () => Promise<T>): Promise<{ value: T | null } | undefined> => {
    try {
      return { value: await fn() };
    } catch (err) {
      if (err instanceof UnsupportedDriverExtension) return { value: null };
      rethrowRefusal(err);
      task.log.warn(`Unexpected exception when trying to detect ${what}`, { node: task.node.uuid, error: String(err) });
      return undefined;
    }
  };
  const mode = await read('boot_mode', () => management.getBootMode(task));
  if (mode === undefined) return;
  const secure = await read('secure_boot state', () => management.getSecureBootState(task));
  if (secure === undefined) return;
  const node = task.node;
  if (mode.value === node.boot_mode && secure.value === node.secure_boot) return;
  node.boot_mode = mode.value;
  node.secure_boot = secure.value;
  await task.persist?.();
  task.log.info('Updated boot_mode and secure_boot', { node: node.uuid, boot_mode: mode.value, secure_boot: secure.value });
}

/** Ironic's `_set_boot_mode_on_bm`: set the mode; an unsupported set fails only when `failIfUnsupported`. */
async function setBootModeOnBmc(task: Task, management: ManagementInterface, mode: string, failIfUnsupported = false): Promise<void> {
  const uuid = task.node.uuid;
  try {
    await setBmcBootMode(task, management, mode);
  } catch (err) {
    if (err instanceof UnsupportedDriverExtension) {
      if (failIfUnsupported) {
        const message = `Baremetal node ${uuid} boot mode is not set to boot mode ${mode}: ${err.message}`;
        task.log.error(message, { node: uuid });
        throw UnsupportedDriverExtension.withMessage(message);
      }
      task.log.debug(
        `Baremetal node ${uuid} boot mode is not set to boot mode ${mode}. Assuming baremetal node is already in ${mode} or driver set boot mode via some other mechanism: ${err.message}`,
        { node: uuid },
      );
      return;
    }
    if (err instanceof InvalidParameterValue) {
      const message = `Node ${uuid} boot mode is not set. Attempt to set ${mode} boot mode on the baremetal node failed with error ${err.message}`;
      task.log.error(message, { node: uuid });
      throw new InvalidParameterValue(message);
    }
    throw err;
  }
  task.log.info(`Baremetal node boot mode is set to boot mode ${mode}`, { node: uuid });
  await cacheBootMode(task, management);
}

function recordDeployBootMode(task: Task, mode: string): Promise<void> | undefined {
  task.node.driver_internal_info = { ...task.node.driver_internal_info, deploy_boot_mode: mode };
  return task.persist?.();
}

/** Ironic's sync_boot_mode (see the module's comment for its four cases). */
export async function syncBootMode(task: Task, management: ManagementInterface): Promise<void> {
  const node = task.node;
  let bmcMode: string | null = null;
  try {
    bmcMode = await bmcBootMode(task, management);
  } catch (err) {
    if (!(err instanceof UnsupportedDriverExtension)) throw err;
    task.log.debug(`Cannot determine node ${node.uuid} boot mode: ${err.message}`, { node: node.uuid });
  }
  const requested = requestedBootMode(node);

  if (!requested && !bmcMode) {
    await recordDeployBootMode(task, DEFAULT_BOOT_MODE);
    task.log.debug(`Ironic node ${node.uuid} boot mode will be set to default boot mode ${DEFAULT_BOOT_MODE}`, { node: node.uuid });
    await setBootModeOnBmc(task, management, DEFAULT_BOOT_MODE);
  } else if (!requested && bmcMode) {
    await recordDeployBootMode(task, bmcMode);
    task.log.debug(`Ironic node ${node.uuid} boot mode is set to boot mode ${bmcMode} reported by the driver`, { node: node.uuid });
  } else if (requested && !bmcMode) {
    // Only the node's mode is known: try to set it, and go on if the driver cannot.
    await setBootModeOnBmc(task, management, requested);
  } else if (requested && requested !== bmcMode) {
    task.log.info(
      `Boot mode ${bmcMode} currently configured on node ${node.uuid} does not match the boot mode ${requested} requested for provisioning. Attempting to set node boot mode to ${requested}.`,
      { node: node.uuid },
    );
    // Both known and different: a driver that cannot set it is a misconfiguration, so fail.
    await setBootModeOnBmc(task, management, requested, true);
  }
}

/**
 * Ironic's configure_secure_boot_if_needed, as an instance is prepared: turn secure boot on when
 * the instance asks for it. A management interface that cannot is only warned about (as Ironic
 * does, for now); any other failure fails the deploy.
 */
export async function configureSecureBootIfNeeded(task: Task, management: ManagementInterface): Promise<void> {
  if (!secureBootRequested(task.node)) return;
  const uuid = task.node.uuid;
  try {
    await management.setSecureBootState(task, true);
  } catch (err) {
    if (err instanceof UnsupportedDriverExtension) {
      task.log.warn(
        `Secure boot was requested for node ${uuid} but its management interface ${management.name} does not support it. This warning will become an error in a future release.`,
        { node: uuid },
      );
      return;
    }
    task.log.error(`Failed to configure secure boot for node ${uuid}: ${(err as Error).message}`, { node: uuid });
    throw err;
  }
  task.log.info(`Secure boot has been enabled for node ${uuid}`, { node: uuid });
  await cacheBootMode(task, management);
}

/**
 * Ironic's deconfigure_secure_boot_if_needed, as an instance is cleaned up: turn secure boot off
 * again when the instance had asked for it. A management interface that cannot is not an error
 * (a misconfigured node can still be torn down); any other failure is.
 */
export async function deconfigureSecureBootIfNeeded(task: Task, management: ManagementInterface): Promise<void> {
  if (!secureBootRequested(task.node)) return;
  const uuid = task.node.uuid;
  try {
    await management.setSecureBootState(task, false);
  } catch (err) {
    if (err instanceof UnsupportedDriverExtension) {
      task.log.debug(`Secure boot was requested for node ${uuid} but its management interface ${management.name} does not support it.`, {
        node: uuid,
      });
      return;
    }
    task.log.error(`Failed to deconfigure secure boot for node ${uuid}: ${(err as Error).message}`, { node: uuid });
    throw err;
  }
  task.log.info(`Secure boot has been disabled for node ${uuid}`, { node: uuid });
  await cacheBootMode(task, management);
}
