/** Driving a conductor flow in unit tests as the API and the steps machine would. */
import type { ConductorContext } from '../../../functions/conductor/context';
import { runStep } from '../../../functions/conductor/flows/run-steps';
import type { Step } from '../../../functions/drivers/base';
import type { NodeData } from '../../../functions/objects/node';
import { type makeConductorContext, makeNode } from './builders';

export type Ctx = ReturnType<typeof makeConductorContext>;

/**
 * A node the API has moved with `event` from `state` and locked for message `id` (a manual clean
 * with its target, manageable, as the API begins one).
 */
export async function begun(
  ctx: Ctx,
  state: string,
  event: 'service' | 'clean',
  id: string,
  power_state = 'power on',
  overrides: Partial<NodeData> = {},
) {
  const node = await ctx.nodes.create(makeNode({ provision_state: state, power_state, ...overrides }));
  node.processEvent(event, event === 'clean' ? 'manageable' : undefined);
  await ctx.nodes.save(node, { lockFor: { host: 'api', token: `rpc:${id}`, ttlSeconds: 300 } });
  return node;
}

/** Run the execution's synchronous steps as the machine would, until it is done. */
export async function runAll(ctx: Ctx, flow: 'service' | 'clean' | 'deploy', uuid: string, owner: string, first: Step) {
  let step: Step | null = first;
  while (step !== null) {
    const decision = await runStep(ctx as ConductorContext, { flow, node: uuid, owner, step });
    step = decision.mode === 'done' ? null : decision.step;
  }
}
