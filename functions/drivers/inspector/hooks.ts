/**
 * Inspection hooks (Ironic's `ironic.inspection.hooks` and `inspect_utils.run_inspection_hooks`):
 * what the conductor does with the data a ramdisk posted. Every enabled hook's `preprocess` runs
 * first (failures are gathered and reported together), then each hook's main part in order.
 * Hooks change the node (its properties), its ports, and `pluginData`, which is stored afterwards.
 *
 * The hooks themselves live in `hooks-basic.ts` (properties) and `hooks-ports.ts` (interfaces
 * and ports); their names and dependencies are Ironic's.
 */
import { DatabaseUnavailable, HardwareInspectionFailure } from '#common/errors';
import type { InspectorConfig } from '#common/config';
import type { InspectionTask } from '../base';
import type { InspectionHook, Inventory, PluginData } from './hook-types';
import { architecture, bootMode, cpus, memory, ramdiskError, rootDevice } from './hooks-basic';
import { ports, validateInterfaces } from './hooks-ports';

/** The hooks Ironless has, by name. */
export const INSPECTION_HOOKS: ReadonlyMap<string, InspectionHook> = new Map(
  [ramdiskError, validateInterfaces, ports, architecture, memory, cpus, rootDevice, bootMode].map((h) => [h.name, h]),
);

/**
 * Ironic's `validate_inspection_hooks`: the enabled hooks in order; an unknown name, or a hook
 * listed before (or without) one it depends on, fails with Ironic's message.
 */
export function validateInspectionHooks(names: readonly string[]): InspectionHook[] {
  const missing = names.filter((name) => !INSPECTION_HOOKS.has(name));
  if (missing.length > 0) {
    throw new HardwareInspectionFailure(`The following hook(s) are missing or failed to load: ${missing.join(', ')}`);
  }
  const valid: InspectionHook[] = [];
  const errors: string[] = [];
  for (const name of names) {
    const hook = INSPECTION_HOOKS.get(name) as InspectionHook;
    const absent = (hook.dependencies ?? []).filter((d) => !valid.some((v) => v.name === d));
    if (absent.length > 0) errors.push(`Hook ${name} requires these missing hooks to be enabled before it: ${absent.join(', ')}`);
    else valid.push(hook);
  }
  if (errors.length > 0) throw new HardwareInspectionFailure(`Some hooks failed to load due to dependency problems: ${errors.join(', ')}`);
  return valid;
}

/** Python's name of an exception class, as Ironic's messages print it. */
function className(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}

/** Ironic's `run_inspection_hooks`: preprocess of every hook, then each main part; HardwareInspectionFailure on failure. */
export async function runInspectionHooks(
  task: InspectionTask,
  inventory: Inventory,
  pluginData: PluginData,
  hooks: readonly InspectionHook[],
  config: InspectorConfig,
): Promise<void> {
  const failures: string[] = [];
  for (const hook of hooks) {
    if (hook.preprocess === undefined) continue;
    try {
      await hook.preprocess(task, inventory, pluginData, config);
    } catch (err) {
      const message = (err as Error).message;
      task.log.error(`Preprocess hook: ${hook.name} failed for node ${task.node.uuid} with error: ${message}`);
      failures.push(
        err instanceof HardwareInspectionFailure
          ? `Error in preprocess hook ${hook.name}: ${message}`
          : `Unexpected exception ${className(err)} during preprocess hook ${hook.name}: ${message}`,
      );
    }
  }
  if (failures.length > 0) {
    throw new HardwareInspectionFailure(
      `The following failures happened while running preprocess hooks for node ${task.node.uuid}:\n${failures.join('\n')}`,
    );
  }
  for (const hook of hooks) {
    if (hook.run === undefined) continue;
    try {
      await hook.run(task, inventory, pluginData, config);
    } catch (err) {
      // NOTE: a store that cannot be reached is no fault of the data: the conductor's delivery is
      // retried (Ironic has no such retry and would fail the inspection).
      if (err instanceof HardwareInspectionFailure || err instanceof DatabaseUnavailable) throw err;
      task.log.error(`Unexpected exception while running inspection hooks for node ${task.node.uuid}`, { error: String(err) });
      throw new HardwareInspectionFailure(
        `Unexpected exception ${className(err)} during processing for node: ${task.node.uuid}. Error: ${(err as Error).message}`,
      );
    }
  }
}
