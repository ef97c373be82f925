/** Driving a conductor flow in unit tests as the API and the steps machine would. */
import type { ConductorContext } from '../../../functions/conductor/context';
import { doHeartbeat } from '../../../functions/conductor/flows/heartbeat';
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

/** What the agent's lookup leaves on the node: its one-time token (its URL comes with the heartbeats). */
export async function agentLookedUp(ctx: Ctx, uuid: string, token: string): Promise<void> {
  const node = await ctx.nodes.get(uuid);
  node.driver_internal_info = { ...node.driver_internal_info, agent_secret_token: token };
  await ctx.nodes.save(node);
}

let beats = 0;

/** A heartbeat of the agent at `url`, as the API casts it. */
export function agentHeartbeat(ctx: Ctx, uuid: string, url: string, version = '9.0.0') {
  return doHeartbeat(ctx, { node_id: uuid, callback_url: url, agent_version: version, message_id: `hb${beats++}` });
}
