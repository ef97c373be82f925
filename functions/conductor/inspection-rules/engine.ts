/**
 * Applying inspection rules when an inspection finishes (Ironic's `inspection_rules/engine.py`
 * apply_rules): the rules of the phase, highest priority first (creation order among equals),
 * each whose conditions all hold running its actions in order. Conditions and interpolated
 * arguments see the inspection data with secrets masked (Ironic's default mask_secrets=always);
 * plugin-data actions change the real plugin data, which is stored after the rules ran.
 *
 * A failing rule fails the inspection: Ironic's own errors (a `fail` action, an action that could
 * not run, a port that is not the node's) as they are, anything else as "Failed to apply rule R to
 * node N: …".
 */
import { IronicError } from '#common/errors';
import { InspectionRuleFailed } from '#common/inspection-rules/errors';
import { checkConditions, type Condition } from '#common/inspection-rules/conditions';
import { type FormatContext, interpolate, maskSecrets } from '#common/inspection-rules/interpolate';
import { ACTIONS, normalizeArgs } from '#common/inspection-rules/signatures';
import type { InspectionRule } from '#objects/inspection-rule';
import { ACTION_RUNNERS, type RuleTask } from './actions';

export type { RuleTask } from './actions';

interface Action {
  readonly op: string;
  readonly args: unknown;
  readonly loop?: unknown;
}

async function runAction(task: RuleTask, action: Action, data: FormatContext, pluginData: Record<string, unknown>): Promise<void> {
  const signature = ACTIONS[action.op];
  const run = ACTION_RUNNERS[action.op];
  if (signature === undefined || run === undefined) {
    throw new Error(`Unsupported action: '${action.op}'. Supported actions are: ${Object.keys(ACTIONS).join(', ')}.`);
  }
  const loop = action.loop;
  const looped = Array.isArray(loop) ? loop.length > 0 : loop !== null && typeof loop === 'object' && Object.keys(loop).length > 0;
  const items: { item: unknown }[] | [undefined] = looped ? (Array.isArray(loop) ? loop : [loop]).map((item) => ({ item })) : [undefined];
  for (const item of items) {
    const context: FormatContext = { ...data, ...(item ?? {}) };
    const named = normalizeArgs(signature, action.args ?? {});
    const args = Object.fromEntries(
      Object.entries(named).map(([k, v]) => [k, signature.formatted.includes(k) || item !== undefined ? interpolate(v, context) : v]),
    );
    if (signature.pluginData) args.plugin_data = pluginData;
    await run(task, args);
  }
}

/**
 * Apply `rules` (those of the phase, as stored) to the node of `task`. `pluginData` may be changed
 * by the rules; `inventory` is only read.
 */
export async function applyRules(
  task: RuleTask,
  rules: readonly InspectionRule[],
  inventory: Record<string, unknown>,
  pluginData: Record<string, unknown>,
): Promise<void> {
  const node = task.node;
  if (rules.length === 0) {
    task.log.debug('No inspection rules to apply', { node: node.uuid });
    return;
  }
  const ordered = [...rules].sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0));
  task.log.debug('Applying inspection rules', { node: node.uuid, count: ordered.length });
  const maskedInventory = maskSecrets(inventory);
  for (const rule of ordered) {
    try {
      // Re-masked per rule: an earlier rule may have changed the plugin data.
      const data: FormatContext = { node, inventory: maskedInventory, plugin_data: maskSecrets(pluginData) };
      if (!checkConditions(rule.conditions as unknown as Condition[] | null, data)) {
        task.log.debug('Skipping inspection rule: a condition failed', { node: node.uuid, rule: rule.uuid });
        continue;
      }
      task.log.info('Applying actions of inspection rule', { node: node.uuid, rule: rule.uuid });
      for (const action of rule.actions as unknown as Action[]) {
        // Each action sees the plugin data as the actions before it left it (Ironic's live view).
        await runAction(task, action, { ...data, plugin_data: maskSecrets(pluginData) }, pluginData);
      }
    } catch (err) {
      if (err instanceof IronicError) {
        task.log.error('Error applying inspection rule', { node: node.uuid, rule: rule.uuid, error: err.message });
        throw err;
      }
      const message = `Failed to apply rule ${rule.uuid} to node ${node.uuid}: ${(err as Error).message}`;
      task.log.error(message, { node: node.uuid, rule: rule.uuid });
      throw new InspectionRuleFailed(message);
    }
  }
  task.log.info('Finished applying inspection rules', { node: node.uuid });
}
