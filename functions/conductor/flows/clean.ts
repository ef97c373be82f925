/**
 * Automated cleaning, which `provide` and `deleted` run unless disabled (Ironic's
 * `[conductor]automated_clean`, or the node's own `automated_clean`). The enabled clean steps of
 * the node's driver run on the steps machine; with none the node goes straight to `available`.
 */
import { CLEANING } from '#common/states';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { ConductorContext } from '../context';
import { cacheBiosSettings } from '../bios';
import { cacheFirmwareComponents } from '../firmware';
import { failFlow } from './failure';
import { startSteps } from './run-steps';
import { driverSteps, setSteps } from './steps';

/** Start automated cleaning of a locked node in `cleaning`. */
export async function startAutomatedClean(ctx: ConductorContext, node: Node, owner: string, messageId: string): Promise<void> {
  if (node.provision_state !== CLEANING) throw new Error(`startAutomatedClean: node ${node.uuid} is in ${node.provision_state}`);
  const enabled = node.automated_clean ?? ctx.config.automatedClean;
  let bootAgent = false;
  try {
    const driver = loadDriver(node);
    await driver.power.validate({ node, log: ctx.log });
    setSteps(node, 'clean', enabled ? driverSteps(driver, 'clean') : []);
    // An agent deploy interface cleans in-band too: boot the ramdisk first, its steps join then.
    bootAgent = enabled && driver.deploy.usesAgent === true;
  } catch (err) {
    await failFlow(ctx, node, 'clean', `Failed to prepare node ${node.uuid} for cleaning: ${(err as Error).message}`);
    return;
  }
  if (!enabled) ctx.log.info('Automated cleaning is disabled, node is available', { node: node.uuid });
  else {
    // Ironic's do_node_clean caches the BIOS settings and firmware components before any clean step runs.
    await cacheBiosSettings(ctx, { node, log: ctx.log });
    await cacheFirmwareComponents(ctx, { node, log: ctx.log });
  }
  await startSteps(ctx, node, 'clean', owner, messageId, { bootAgent });
}
