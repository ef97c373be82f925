/**
 * Indicator LEDs (Ironic's manager.py get_supported_indicators, get_indicator_state,
 * set_indicator_state): calls answered while the API waits. Reading and setting a state take the
 * node's lock and validate the management interface first; listing takes no lock, as Ironic's
 * shared task. A management interface without indicators refuses as Ironic's base class does.
 */
import { UnsupportedDriverExtension } from '#common/errors';
import type { ManagementInterface, Task } from '#drivers/base';
import { loadDriver } from '#drivers/registry';
import type { RpcMethods, RpcResults } from '#rpc/messages';
import type { ConductorContext } from '../context';
import { withNodeLock } from './management';

function method<K extends 'getSupportedIndicators' | 'getIndicatorState' | 'setIndicatorState'>(
  management: ManagementInterface,
  task: Task,
  name: K,
  extension: string,
): NonNullable<ManagementInterface[K]> {
  const fn = management[name];
  if (fn === undefined) throw new UnsupportedDriverExtension(task.node.driver, extension);
  return fn.bind(management) as NonNullable<ManagementInterface[K]>;
}

export async function getSupportedIndicators(
  ctx: ConductorContext,
  args: RpcMethods['get_supported_indicators'],
): Promise<RpcResults['get_supported_indicators']> {
  const node = await ctx.nodes.get(args.node_id);
  const task = { node, log: ctx.log };
  const management = loadDriver(node).management;
  const indicators = await method(management, task, 'getSupportedIndicators', 'get_supported_indicators')(task, args.component);
  return Object.fromEntries(
    Object.entries(indicators).map(([c, byName]) => [
      c,
      Object.fromEntries(Object.entries(byName).map(([n, info]) => [n, { readonly: info.readonly, states: [...info.states] }])),
    ]),
  );
}

export async function getIndicatorState(ctx: ConductorContext, args: RpcMethods['get_indicator_state']): Promise<string> {
  return withNodeLock(ctx, args.node_id, async (node) => {
    const task = { node, log: ctx.log };
    const management = loadDriver(node).management;
    await management.validate(task);
    return method(management, task, 'getIndicatorState', 'get_indicator_state')(task, args.component, args.indicator);
  });
}

export async function setIndicatorState(ctx: ConductorContext, args: RpcMethods['set_indicator_state']): Promise<null> {
  return withNodeLock(ctx, args.node_id, async (node) => {
    const task = { node, log: ctx.log };
    const management = loadDriver(node).management;
    await management.validate(task);
    await method(management, task, 'setIndicatorState', 'set_indicator_state')(task, args.component, args.indicator, args.state);
    ctx.log.info('Indicator state set', { node: node.uuid, component: args.component, indicator: args.indicator, state: args.state });
    return null;
  });
}
